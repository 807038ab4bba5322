import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// What the server's purge timers delete, and when, read from the injected clock: old
/// revisions (`--revision-ttl`), expired access tokens, ended sessions and personal tokens.
/// The timers call these same store methods; here they are called at chosen instants.
@Suite("Retention by age runs on the server's clock")
struct RetentionClockTests {
    /// Creates (`rev` nil) or updates the note `id` and returns it.
    private static func put(_ app: TestApp, _ id: NoteID, _ request: PutNoteRequest, token: String,
                            ifMatch rev: Int64?) async throws -> NoteResource {
        let condition = rev.map { ["If-Match": "\"\($0)\""] } ?? ["If-None-Match": "*"]
        let response = try await app.send("PUT", "/v1/notes/\(id)", json: request, token: token, headers: condition)
        try #require((200...201).contains(response.status), "PUT answered \(response.status): \(response.text)")
        return try response.decode(NoteResource.self)
    }

    private static func revisions(_ app: TestApp, _ id: NoteID, token: String) async throws -> [Int64] {
        try await app.send("GET", "/v1/notes/\(id)/revisions", token: token).decode(RevisionList.self).revisions.map(\.rev)
    }

    @Test("revisions are pruned once older than the retention, except each note's latest and a deleted note's last content")
    func revisionsArePrunedByAge() async throws {
        try await TestApp.with { (app: TestApp) async throws in
            let retention: Int64 = 3_600_000
            var token = try await app.signIn().accessToken
            let kept = NoteID(), doomed = NoteID()
            let one = try await Self.put(app, kept, PutNoteRequest(path: "kept.md", content: "one"), token: token, ifMatch: nil)
            let two = try await Self.put(app, kept, PutNoteRequest(path: "kept.md", content: "two"), token: token, ifMatch: one.rev)
            let last = try await Self.put(app, doomed, PutNoteRequest(path: "doomed.md", content: "last words"), token: token, ifMatch: nil)
            let gone = await app.send("DELETE", "/v1/notes/\(doomed)", token: token, headers: ["If-Match": "\"\(last.rev)\""])
            let deleted = try gone.decode(NoteResource.self)

            app.clock.advance(seconds: 3600)
            #expect(try app.application.notes.pruneRevisions(olderThanMilliseconds: retention) == 0, "not older yet")
            app.clock.advance(seconds: 0.001)
            #expect(try app.application.notes.pruneRevisions(olderThanMilliseconds: retention) == 1)

            token = try await app.signIn().accessToken
            #expect(try await Self.revisions(app, kept, token: token) == [two.rev])
            #expect(try await Self.revisions(app, doomed, token: token) == [deleted.rev, last.rev], "a deleted note can still be restored")
        }
    }

    @Test("an expired access token is told apart from an unknown one for one more lifetime, then deleted")
    func expiredAccessTokensAreDeletedAfterALifetime() async throws {
        try await TestApp.with({ $0.lifetimes.accessSeconds = 60 }) { (app: TestApp) async throws in
            let tokens = try await app.signIn()
            let accessTokens = "SELECT count(*) FROM tokens WHERE kind = 'access'"
            app.clock.advance(seconds: 120)
            try app.application.sessions.purgeExpired()
            #expect(try app.count(accessTokens) == 1)
            #expect(await app.me(tokens.accessToken).header("WWW-Authenticate")?.contains("expired") == true)

            app.clock.advance(seconds: 0.001)
            try app.application.sessions.purgeExpired()
            #expect(try app.count(accessTokens) == 0)
            #expect(await app.me(tokens.accessToken).status == 401)
        }
    }

    @Test("a signed-out session and a revoked personal token are kept for the retention, so their end can be seen, then deleted")
    func endedCredentialsAreDeletedAfterTheRetention() async throws {
        try await TestApp.with { (app: TestApp) async throws in
            let tokens = try await app.signIn()
            let personal = try await app.createToken("ci", scope: .read, using: tokens.accessToken)
            #expect(await app.send("DELETE", "/v1/tokens/\(personal.id)", token: tokens.accessToken).status == 204)
            #expect(await app.send("POST", "/v1/auth/logout", token: tokens.accessToken).status == 204)
            let sessions = "SELECT count(*) FROM sessions", personalTokens = "SELECT count(*) FROM tokens WHERE kind = 'personal'"

            app.clock.advance(seconds: Double(SessionStore.endedRetentionMilliseconds) / 1000)
            try app.application.sessions.purgeExpired()
            #expect(try app.count(sessions) == 1 && app.count(personalTokens) == 1)

            app.clock.advance(seconds: 0.001)
            try app.application.sessions.purgeExpired()
            #expect(try app.count(sessions) == 0 && app.count(personalTokens) == 0)
        }
    }
}
