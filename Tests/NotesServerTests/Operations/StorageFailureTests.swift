import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// A full disk and a vanished database file, on the real server: writes are refused with the
/// JSON error (507 or 503, never 500), reads go on, and writes resume by themselves when space
/// returns.
///
/// A full disk is made with `--max-db-size` (SQLite's `max_page_count` on the server's
/// connection), no mount needed. The test plays "other files on the same disk": from a second
/// connection it fills the database with a ballast table right up to the limit, then drops the
/// ballast to give the room back, as an operator deleting files would, without a restart.
@Suite("notes-server: full and vanished storage", .sqliteOnly)
struct StorageFailureTests {
    static let limit: Int64 = 1 << 20
    static let password = TestAccount.password

    @Test("a full database answers 507 to every kind of write, keeps serving reads, and takes writes again once room is freed")
    func fullDatabaseRefusesWritesThenRecovers() async throws {
        try await LiveServer.with(["--max-db-size", "1M"], account: .added) { server, _ in
        let anonymous = TestAPIClient(server)
        let session = try await Self.signIn(anonymous)
        var refreshToken = try #require(session.refreshToken)
        let api = TestAPIClient(baseURL: server.baseURL, token: session.accessToken)
        let personal = try await Self.createToken(api)
        let kept = try await api.create("kept.md", "# Kept\nthrough a full disk\n")
        let big = String(repeating: "many words of a long note ", count: 2_600)  // ~66 KB: 16+ pages per copy

        try Self.fillWithBallast(server.databaseLocation)

        let put = try await api.put(NoteID(), path: "big.md", content: big, headers: ["If-None-Match": "*"])
        Self.expectInsufficientStorage(put, "PUT")
        let batch = try await api.send("POST", "/v1/batch", json: BatchRequest(operations: [
            BatchOperation(op: .put, id: NoteID(), path: "batched.md", content: big, ifNoneMatch: "*"),
        ]))
        Self.expectInsufficientStorage(batch, "batch")
        let personalPut = try await api.send("PUT", "/v1/notes/\(NoteID())", json: PutNoteRequest(path: "script.md", content: big),
                                             token: personal, headers: ["If-None-Match": "*"])
        Self.expectInsufficientStorage(personalPut, "PUT with a personal token")
        // Small writes fit in the slack of existing pages for a while; each kind is repeated
        // until its rows need a page nobody can give. Every refused attempt must be a 507.
        var refreshed: TestAPIResponse?
        for _ in 0..<300 {
            let response = try await anonymous.send("POST", "/v1/auth/refresh", json: RefreshRequest(refreshToken: refreshToken))
            refreshed = response
            guard response.status == 200 else { break }
            refreshToken = try #require(try response.decode(TokenResponse.self).refreshToken)
        }
        Self.expectInsufficientStorage(try #require(refreshed), "refresh")
        var login: TestAPIResponse?
        for _ in 0..<100 {
            login = try await anonymous.send("POST", "/v1/auth/login", json: LoginRequest(username: TestAccount.username, password: Self.password))
            guard login?.status == 200 else { break }
        }
        Self.expectInsufficientStorage(try #require(login), "login")
        var small: TestAPIResponse?
        for index in 0..<300 {
            small = try await api.put(NoteID(), path: "small-\(index).md", content: "a short note \(index)\n", headers: ["If-None-Match": "*"])
            guard small?.status == 201 else { break }
        }
        Self.expectInsufficientStorage(try #require(small), "PUT of small notes")

        // Reads go on, with a session token and with a personal token (whose last use cannot be recorded now).
        let read = try await api.send("GET", "/v1/notes/\(kept.id)")
        #expect(read.status == 200)
        #expect(try read.decode(NoteResource.self).content == "# Kept\nthrough a full disk\n")
        // Its HTML was never rendered: rendering it now cannot keep the copy, and must not fail.
        let html = try await api.send("GET", "/v1/notes/\(kept.id)/html")
        #expect(html.status == 200 && html.text.contains(">Kept</h1>"), "HTML on a full disk: \(html.status) \(html.text)")
        #expect(try await api.send("GET", "/v1/notes").status == 200)
        #expect(try await api.send("GET", "/v1/changes").status == 200)
        #expect(try await api.send("GET", "/v1/me", token: personal).status == 200)
        #expect(try await api.send("GET", "/v1/notes/\(kept.id)", token: personal).status == 200)

        // Space returns: every kind of write works again, without a restart.
        let ballast = try Database(path: server.databaseLocation)
        try ballast.execute("DROP TABLE ballast")
        try ballast.close()
        let again = try await api.put(NoteID(), path: "big.md", content: big, headers: ["If-None-Match": "*"])
        #expect(again.status == 201, "PUT after room was freed: \(again.status) \(again.text)")
        let batchAgain = try await api.send("POST", "/v1/batch", json: BatchRequest(operations: [
            BatchOperation(op: .put, id: NoteID(), path: "batched.md", content: "# Batched\n", ifNoneMatch: "*"),
        ]))
        #expect(batchAgain.status == 200)
        #expect(try batchAgain.decode(BatchResponse.self).results.map(\.status) == [201])
        // The refresh token refused with 507 was rolled back with its transaction: still the live one.
        let refreshAgain = try await anonymous.send("POST", "/v1/auth/refresh", json: RefreshRequest(refreshToken: refreshToken))
        #expect(refreshAgain.status == 200, "refresh after room was freed: \(refreshAgain.status) \(refreshAgain.text)")
        #expect(try await anonymous.send("POST", "/v1/auth/login", json: LoginRequest(username: TestAccount.username, password: Self.password)).status == 200)
        let personalAgain = try await api.send("PUT", "/v1/notes/\(NoteID())", json: PutNoteRequest(path: "script.md", content: "# Script\n"),
                                               token: personal, headers: ["If-None-Match": "*"])
        #expect(personalAgain.status == 201)
        let deleted = try await api.send("DELETE", "/v1/notes/\(kept.id)", headers: ["If-Match": "\"\(kept.rev)\""])
        #expect(deleted.status == 200)
        // The log is written in batches: wait for the last request's line before reading it whole.
        #expect(try await waitUntil { server.log.contains("DELETE /v1/notes/\(kept.id) 200 ") })
        #expect(!server.log.contains("internal error"), "a storage failure became a 500: \(server.log)")
        #expect(server.log.contains("STORAGE FAILURE"))
        }
    }

    @Test("a database file deleted while the server runs makes writes answer 503 and the log say why; reads go on")
    func deletedDatabaseFileRefusesWrites() async throws {
        try await LiveServer.with(account: .added) { server, _ in
        let session = try await Self.signIn(TestAPIClient(server))
        let api = TestAPIClient(baseURL: server.baseURL, token: session.accessToken)
        let note = try await api.create("doomed.md", "# Written before\n")

        try FileManager.default.removeItem(atPath: server.databaseLocation)

        let update = try await api.put(note.id, path: note.path, content: "# Would be lost\n", headers: ["If-Match": "\"\(note.rev)\""])
        #expect(update.status == 503)
        #expect(update.errorCode == "storage_unavailable")
        #expect(update.isErrorBody)
        #expect(update.header("Retry-After") != nil)
        let create = try await api.put(NoteID(), path: "new.md", content: "# New\n", headers: ["If-None-Match": "*"])
        #expect(create.status == 503)
        let read = try await api.send("GET", "/v1/notes/\(note.id)")
        #expect(read.status == 200)
        #expect(try read.decode(NoteResource.self).content == "# Written before\n")
        let logged = try await waitUntil { server.log.contains("was deleted, moved or replaced while open") }
        #expect(logged, "the log does not say why writes fail: \(server.log)")
        #expect(server.log.contains(server.databaseLocation))
        let refreshToken = try #require(session.refreshToken)
        #expect(!server.log.contains(session.accessToken) && !server.log.contains(refreshToken))
        }
    }

    // MARK: - Helpers

    private static func signIn(_ client: TestAPIClient) async throws -> TokenResponse {
        let response = try await client.send("POST", "/v1/auth/login", json: LoginRequest(username: TestAccount.username, password: password))
        try #require(response.status == 200, "login answered \(response.status): \(response.text)")
        return try response.decode(TokenResponse.self)
    }

    private static func createToken(_ api: TestAPIClient) async throws -> String {
        let response = try await api.send("POST", "/v1/tokens", json: CreateTokenRequest(name: "script", scope: .write))
        try #require(response.status == 201, "token creation answered \(response.status): \(response.text)")
        return try #require(try response.decode(PersonalTokenResource.self).token)
    }

    /// Fills the database at `path` up to `limit` from a second connection with the same limit,
    /// in ever smaller rows, until not even a small row finds a free page.
    private static func fillWithBallast(_ path: String) throws {
        var options = Database.Options()
        options.maxSizeBytes = limit
        options.synchronousFull = false
        let database = try Database(path: path, options: options)
        try database.execute("CREATE TABLE ballast (data BLOB NOT NULL)")
        for size in [65_536, 4_096, 256, 16] {
            for _ in 0..<10_000 {
                do {
                    try database.run("INSERT INTO ballast (data) VALUES (zeroblob(?))", size)
                } catch {
                    guard error.kind == .full else { throw error }
                    break
                }
            }
        }
        try database.close()
    }

    private static func expectInsufficientStorage(_ response: TestAPIResponse, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == 507, "\(what) answered \(response.status): \(response.text)", sourceLocation: sourceLocation)
        #expect(response.errorCode == "insufficient_storage", sourceLocation: sourceLocation)
        #expect(response.isErrorBody, sourceLocation: sourceLocation)
    }
}
