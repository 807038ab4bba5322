import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Lifetimes and the grace window are tested in-process, advancing a test clock instead of sleeping.
@Suite("Auth: access token expiry, refresh rotation, reuse detection and the grace window")
struct RefreshTests {
    @Test("an access token stops working when its lifetime ends; a refresh issues fresh ones")
    func accessTokenExpiresAndRefreshRenews() async throws {
        try await TestApp.with({ $0.lifetimes.accessSeconds = 6 }) { (app: TestApp) async throws in
            let tokens = try await app.signIn()
            #expect(tokens.expiresIn == 6)
            app.clock.advance(seconds: 5.9)
            #expect(await app.me(tokens.accessToken).status == 200)
            app.clock.advance(seconds: 0.1)

            let expired = await app.me(tokens.accessToken)
            #expect(expired.status == 401)
            #expect(expired.errorCode == "invalid_token")
            #expect(expired.header("WWW-Authenticate") == #"Bearer realm="notes", error="invalid_token", error_description="The access token expired""#)

            let refreshed = try await app.refresh(try #require(tokens.refreshToken))
            #expect(refreshed.status == 200)
            #expect(refreshed.header("Cache-Control") == "no-store")
            let renewed = try refreshed.decode(TokenResponse.self)
            #expect(renewed.accessToken != tokens.accessToken)
            #expect(renewed.refreshToken != tokens.refreshToken)
            #expect(await app.me(renewed.accessToken).status == 200)
        }
    }

    @Test("presenting an older spent refresh token revokes the whole session")
    func reuseOfSpentTokenRevokesSession() async throws {
        try await LiveServer.with(account: .added) { _, client in
            let first = try await client.signIn()
            let second = try await client.refresh(try #require(first.refreshToken)).decode(TokenResponse.self)
            let third = try await client.refresh(try #require(second.refreshToken)).decode(TokenResponse.self)
            #expect(try await client.me(third.accessToken).status == 200)

            // The first token is neither current nor the immediately previous one: a replay.
            let replay = try await client.refresh(try #require(first.refreshToken))
            #expect(replay.status == 401)
            #expect(replay.errorCode == "invalid_grant")
            #expect(replay.header("WWW-Authenticate") == #"Bearer realm="notes""#)
            #expect(try await client.refresh(try #require(third.refreshToken)).errorCode == "invalid_grant")
            #expect(try await client.me(third.accessToken).status == 401)
        }
    }

    @Test("the immediately previous refresh token still works within the grace window")
    func previousTokenWorksWithinGrace() async throws {
        try await LiveServer.with(account: .added) { _, client in
            let first = try await client.signIn()
            // This answer is "lost": the client retries with the token it still has.
            _ = try await client.refresh(try #require(first.refreshToken)).decode(TokenResponse.self)
            let retry = try await client.refresh(try #require(first.refreshToken))
            #expect(retry.status == 200)
            let retried = try retry.decode(TokenResponse.self)
            #expect(try await client.me(retried.accessToken).status == 200)
            let next = try await client.refresh(try #require(retried.refreshToken))
            #expect(next.status == 200, "the session goes on from the retried answer")
        }
    }

    @Test("the previous refresh token presented after the grace window revokes the session")
    func previousTokenAfterGraceRevokes() async throws {
        try await TestApp.with({ $0.lifetimes.refreshGraceSeconds = 1 }) { (app: TestApp) async throws in
            let first = try await app.signIn()
            let second = try await app.refresh(try #require(first.refreshToken)).decode(TokenResponse.self)
            app.clock.advance(seconds: 1.001)

            let late = try await app.refresh(try #require(first.refreshToken))
            #expect(late.status == 401 && late.errorCode == "invalid_grant")
            #expect(try await app.refresh(try #require(second.refreshToken)).errorCode == "invalid_grant")
            #expect(await app.me(second.accessToken).status == 401)
        }
    }

    @Test("a session unused for longer than the idle lifetime cannot refresh")
    func idleSessionExpires() async throws {
        try await TestApp.with({ $0.lifetimes.refreshIdleSeconds = 60 }) { (app: TestApp) async throws in
            let tokens = try await app.signIn()
            app.clock.advance(seconds: 60.001)
            let refresh = try await app.refresh(try #require(tokens.refreshToken))
            #expect(refresh.status == 401 && refresh.errorCode == "invalid_grant")
            #expect(try refresh.decode(APIErrorBody.self).error.message.contains("expired"))
        }
    }

    @Test("even an active session ends at its absolute lifetime")
    func absoluteLifetimeEndsActiveSession() async throws {
        try await TestApp.with({ $0.lifetimes.refreshAbsoluteSeconds = 3600 }) { (app: TestApp) async throws in
            let first = try await app.signIn()
            app.clock.advance(seconds: 3599)
            let second = try await app.refresh(try #require(first.refreshToken))
            #expect(second.status == 200, "within the lifetime")
            // The session was just used (its idle clock restarted), but its age still counts.
            app.clock.advance(seconds: 1.001)
            let third = try await app.refresh(try #require(try second.decode(TokenResponse.self).refreshToken))
            #expect(third.status == 401 && third.errorCode == "invalid_grant")
        }
    }

    @Test("expired access tokens are deleted from the database by the purge timer")
    func expiredAccessTokensArePurged() async throws {
        try await LiveServer.with(["--access-token-ttl", "1"], account: .added) { server, client in
            let tokens = try await client.signIn()
            _ = try await client.refresh(try #require(tokens.refreshToken))
            let database = try DirectDatabase(server.databaseLocation)
            defer { database.close() }
            let count = { try database.db.scalarInt("SELECT count(*) FROM tokens WHERE kind = 'access'") ?? -1 }
            #expect(try count() == 2)
            // Kept a few seconds after expiry (so clients hear "expired"), then purged.
            #expect(try await waitUntil(timeout: 20) { try count() == 0 })
        }
    }
}
