import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Two `notes-server` processes on one PostgreSQL database, each answering repeated
/// `GET /v1/notes/{id}` from its own memory: what one server commits must reach the other's
/// answers (a cache is fine where a revocation or change reaches every server within a
/// second). Waits are polls with a deadline far past that second, so a loaded machine makes
/// them slower, never wrong; a cache that never learns fails them.
@Suite("Note cache: two servers on one PostgreSQL database",
       .enabled(if: TestPostgresCluster.shouldRun && TestBackend.current == .postgres,
                "runs on the PostgreSQL pass: two servers share only a PostgreSQL database"))
struct NoteCacheAcrossServersTests {
    @Test("a note changed, deleted or its token revoked through one server is answered so by the other, which had it cached")
    func changesThroughOneServerReachTheOther() async throws {
        try await Self.withTwoServers { a, b, token in
            let writer = TestAPIClient(baseURL: a.baseURL, token: token)
            let reader = TestAPIClient(baseURL: b.baseURL, token: token)
            var note = try await writer.create("shared.md", "first")
            try await NoteCacheLiveTests.expectRead(reader, note.id, content: "first", rev: note.rev)
            try await NoteCacheLiveTests.expectRead(reader, note.id, content: "first", rev: note.rev)

            note = try await writer.update(note, content: "second")
            #expect(try await Self.eventually { try await Self.content(reader, note.id) == "second" })

            _ = try await writer.delete(note)
            #expect(try await Self.eventually { try await reader.send("GET", "/v1/notes/\(note.id)").errorCode == "note_deleted" })

            let kept = try await writer.create("kept.md", "kept")
            let personal = try await writer.createToken("script", scope: .read, using: token)
            let secret: String = try #require(personal.token)
            let script = TestAPIClient(baseURL: b.baseURL, token: secret)
            try await NoteCacheLiveTests.expectRead(script, kept.id, content: "kept", rev: kept.rev)
            try await NoteCacheLiveTests.expectRead(script, kept.id, content: "kept", rev: kept.rev)
            #expect(try await writer.send("DELETE", "/v1/tokens/\(personal.id)").status == 204)
            #expect(try await Self.eventually { try await script.send("GET", "/v1/notes/\(kept.id)").status == 401 },
                    "the revoked token is refused by the other server")
        }
    }

    @Test("a server whose change listener is cut off serves no kept note while it cannot hear changes, and caches again once it listens")
    func lostListenerLeavesNoStaleAnswer() async throws {
        try await Self.withTwoServers { a, b, token in
            let writer = TestAPIClient(baseURL: b.baseURL, token: token)
            let reader = TestAPIClient(baseURL: a.baseURL, token: token)
            var note = try await writer.create("watched.md", "v1")
            try await NoteCacheLiveTests.expectRead(reader, note.id, content: "v1", rev: note.rev)
            try await NoteCacheLiveTests.expectRead(reader, note.id, content: "v1", rev: note.rev)

            // Cut both listeners off and keep them off: new connections to the database are
            // refused (each server's one pooled connection stays), so no notification reaches A.
            let database = try PostgresURL(a.databaseLocation)
            let admin = try PostgresConnection(url: try PostgresURL(try #require(TestPostgresCluster.url)))
            defer { admin.close() }
            try admin.execute("ALTER DATABASE \(try #require(database.database)) ALLOW_CONNECTIONS false")
            defer { try? admin.execute("ALTER DATABASE \(database.database ?? "") ALLOW_CONNECTIONS true") }
            let terminated = try admin.scalarInt("""
                SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                                      WHERE datname = ? AND application_name = 'notes-server listener') t
                """, [database.database ?? ""])
            #expect(terminated == 2)

            note = try await writer.update(note, content: "v2")
            #expect(try await Self.eventually { try await Self.content(reader, note.id) == "v2" },
                    "once A finds its listener gone, it reads the database")
            // Still deaf: every read goes to the database, so the next change shows at once.
            note = try await writer.update(note, content: "v3")
            try await NoteCacheLiveTests.expectRead(reader, note.id, content: "v3", rev: note.rev)
            try await NoteCacheLiveTests.expectRead(reader, note.id, content: "v3", rev: note.rev)

            try admin.execute("ALTER DATABASE \(database.database ?? "") ALLOW_CONNECTIONS true")
            let listening = try await Self.eventually {
                try admin.scalarInt("""
                    SELECT count(*) FROM pg_stat_activity WHERE datname = ? AND application_name = 'notes-server listener'
                    """, [database.database ?? ""]) == 2
            }
            #expect(listening, "both listeners reconnect")
            try await NoteCacheLiveTests.expectRead(reader, note.id, content: "v3", rev: note.rev)
            note = try await writer.update(note, content: "v4")
            #expect(try await Self.eventually { try await Self.content(reader, note.id) == "v4" })
        }
    }

    /// Two servers on a fresh database, each with one pooled connection (opened at start, so the
    /// listener test can refuse new ones), and a signed-in user's access token.
    static func withTwoServers(_ body: (TestServer, TestServer, String) async throws -> Void) async throws {
        try await TestServer.sharingOneDatabase(2, on: .postgres, extraArguments: ["--db-pool-size", "1"]) { servers in
            try await servers[0].addUser("alice", password: TestAccount.password)
            let signedIn = try await TestAPIClient(servers[0]).signedIn("alice", password: TestAccount.password)
            try await body(servers[0], servers[1], try #require(signedIn.token))
        }
    }

    /// The content `GET /v1/notes/{id}` answers, or nil for any other answer.
    static func content(_ api: TestAPIClient, _ id: NoteID) async throws -> String? {
        let response = try await api.send("GET", "/v1/notes/\(id)")
        guard response.status == 200 else { return nil }
        return try response.decode(NoteResource.self).content
    }

    /// Polls `condition` until it holds, for far longer than the second the issue allows.
    static func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        try await waitUntil(timeout: 15, condition)
    }
}
