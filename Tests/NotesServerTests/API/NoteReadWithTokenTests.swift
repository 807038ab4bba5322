import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// `GET /v1/notes/{id}` reads the caller's token and the note in one statement
/// (`TokenAuthenticator.authenticate(_:readingNote:)`); every other route checks the token first
/// and reads afterwards. The two must answer alike for every state a token and a note can be in.
@Suite("Notes API: a note read together with its token")
struct NoteReadWithTokenTests {
    @Test("the token and the note read together answer exactly as the token checked first and the note read after, for every token and note")
    func combinedReadMatchesTheTwoStepRead() async throws {
        try await TestApp.with { app in
            let (alice, note, gone, bob) = try await Self.seed(app)
            let bobsNote = try await Self.create(app, "a.md", "# Bob\n", token: bob.accessToken)
            let script = try #require(try await app.createToken("script", scope: .read, using: alice.accessToken).token)

            let revoked = try await app.signIn()
            #expect(await app.send("POST", "/v1/auth/logout", token: revoked.accessToken).status == 204)
            try app.addUser("carol", password: TestAccount.password)
            let carol = try await app.login("carol").decode(TokenResponse.self)
            // Disabled behind the server's back: disabling through the store revokes the tokens
            // too, and that check would answer first.
            try app.application.database.write { db in try db.run("UPDATE users SET disabled = 1 WHERE username = 'carol'") }
            let unknown = String(alice.accessToken.dropLast()) + (alice.accessToken.hasSuffix("A") ? "B" : "A")

            let ids = [note.id, gone.id, bobsNote.id, NoteID()]
            let tokens = [alice.accessToken, bob.accessToken, script, revoked.accessToken, carol.accessToken, unknown,
                          try #require(alice.refreshToken), "not-a-token"]
            var compared = 0
            for token in tokens {
                for id in ids {
                    try Self.expectSameAnswer(app, token: token, id: id)
                    compared += 1
                }
            }
            app.clock.advance(seconds: Double(TokenLifetimes().accessSeconds + 1))
            for id in ids { try Self.expectSameAnswer(app, token: alice.accessToken, id: id) }
            #expect(compared == tokens.count * ids.count)
        }
    }

    @Test("GET of a note answers it to its owner, 404 to another account and for a tombstone, 401 for a revoked or expired token")
    func getAnswersByTokenAndNote() async throws {
        try await TestApp.with { app in
            let (alice, note, gone, bob) = try await Self.seed(app)

            let own = await app.send("GET", "/v1/notes/\(note.id)", token: alice.accessToken)
            #expect(own.status == 200)
            #expect(try own.decode(NoteResource.self).content == "# A\n")
            #expect(await app.send("GET", "/v1/notes/\(note.id)", token: bob.accessToken).errorCode == "not_found")
            #expect(await app.send("GET", "/v1/notes/\(gone.id)", token: alice.accessToken).errorCode == "note_deleted")
            #expect(await app.send("GET", "/v1/notes/\(NoteID())", token: alice.accessToken).status == 404)

            let session = try await app.signIn()
            #expect(await app.send("POST", "/v1/auth/logout", token: session.accessToken).status == 204)
            let revoked = await app.send("GET", "/v1/notes/\(note.id)", token: session.accessToken)
            #expect(revoked.status == 401 && revoked.header("WWW-Authenticate")?.contains("was revoked") == true)
            app.clock.advance(seconds: Double(TokenLifetimes().accessSeconds + 1))
            let expired = await app.send("GET", "/v1/notes/\(note.id)", token: alice.accessToken)
            #expect(expired.status == 401 && expired.header("WWW-Authenticate")?.contains("expired") == true)
        }
    }

    /// Alice signed in with a live note and a deleted one, and Bob signed in.
    private static func seed(_ app: TestApp) async throws
        -> (alice: TokenResponse, note: NoteResource, gone: NoteResource, bob: TokenResponse) {
        let alice = try await app.signIn()
        let note = try await create(app, "a.md", "# A\n", token: alice.accessToken)
        let gone = try await create(app, "b.md", "# B\n", token: alice.accessToken)
        let deletion = await app.send("DELETE", "/v1/notes/\(gone.id)", token: alice.accessToken, headers: ["If-Match": "\"\(gone.rev)\""])
        try #require(deletion.status == 200)
        try app.addUser("bob", password: TestAccount.password)
        let bob = try await app.login("bob").decode(TokenResponse.self)
        return (alice, note, gone, bob)
    }

    private static func create(_ app: TestApp, _ path: String, _ content: String, token: String) async throws -> NoteResource {
        let response = try await app.send("PUT", "/v1/notes/\(NoteID())", json: PutNoteRequest(path: path, content: content), token: token,
                                          headers: ["If-None-Match": "*"])
        try #require(response.status == 201, "create answered \(response.status): \(response.text)")
        return try response.decode(NoteResource.self)
    }

    /// Asks for note `id` with `token` both ways and expects the same caller and note, or the same refusal.
    private static func expectSameAnswer(_ app: TestApp, token: String, id: NoteID) throws {
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: "Bearer \(token)")
        let request = HTTPRequest(method: "GET", path: "/v1/notes/\(id)", query: [:], headers: headers, body: [], remoteAddress: "127.0.0.1")
        let authenticator = app.application.router.authenticator
        let twoStep = answer {
            let principal = try authenticator.authenticate(request)
            return (principal, try app.application.notes.note(userID: principal.userID, id: id))
        }
        let together = answer {
            let read = try authenticator.authenticate(request, readingNote: id)
            // A note cache's encoded answer is always this note's own, as the controller would write it.
            if let kept = read.answer { #expect(read.note.map { kept.id == $0.id && kept.etag == "\"\($0.rev)\"" && kept.json == $0.resource.wireJSON() } == true) }
            return (read.principal, read.note)
        }
        #expect(together == twoStep, "token \(token.prefix(4))…, note \(id)")
    }

    /// What a read came to, comparable: the caller and the whole note, or the error.
    private static func answer(_ read: () throws -> (principal: Principal, note: NoteRecord?)) -> String {
        do {
            let (principal, note) = try read()
            let described = note.map { "\($0.resource) content \($0.content ?? "nil")" } ?? "no note"
            return "\(principal): \(described)"
        } catch {
            return "refused: \(error)"
        }
    }
}
