import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// A spent refresh token replayed within the grace window gets the answer its rotation gave, so
/// a session never forks.
@Suite("Auth: refresh replays within the grace window never fork a session")
struct RefreshReplayTests {
    @Test("20 concurrent refreshes with one token, split over two servers sharing a database, all get the same successor pair")
    func concurrentReplaysAcrossServersGetOnePair() async throws {
        try await LiveServer.with(account: .added) { first, client in
            let second = try await TestServer(database: first.databaseLocation)
            let secondClient = TestAPIClient(second)
            do {
                let tokens = try await client.signIn(device: "laptop")
                let refreshToken = try #require(tokens.refreshToken)
                // The first to arrive rotates; every other one is a replay within the grace.
                let answers = try await withThrowingTaskGroup(of: TestAPIResponse.self) { group in
                    for index in 0..<20 {
                        let target = index.isMultiple(of: 2) ? client : secondClient
                        group.addTask { try await target.refresh(refreshToken) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(answers.map(\.status) == Array(repeating: 200, count: 20), "\(answers.map(\.text))")
                let pairs = Set(try answers.map { answer in
                    let decoded = try answer.decode(TokenResponse.self)
                    return [decoded.accessToken, decoded.refreshToken ?? ""]
                })
                #expect(pairs.count == 1, "one successor pair, not \(pairs.count)")
                let successor = try #require(pairs.first)

                let sessions = try await first.admin(["sessions", "list", "--user", TestAccount.username])
                #expect(sessions.stdout.split(separator: "\n").count == 1, "exactly one session: \(sessions.stdout)")
                #expect(try await secondClient.me(successor[0]).status == 200)
                #expect(try await client.refresh(successor[1]).status == 200, "the session goes on from the successor")
            } catch {
                await second.stop()
                throw error
            }
            await second.stop()
        }
    }

    @Test("a replay within the grace answers the same pair, its access lifetime counting down")
    func replayWithinGraceAnswersTheSamePair() async throws {
        try await TestApp.with({ $0.lifetimes.accessSeconds = 120 }) { (app: TestApp) async throws in
            let tokens = try await app.signIn()
            let rotated = try await app.refresh(try #require(tokens.refreshToken)).decode(TokenResponse.self)
            app.clock.advance(seconds: 50)
            let replay = try await app.refresh(try #require(tokens.refreshToken))
            #expect(replay.status == 200)
            let replayed = try replay.decode(TokenResponse.self)
            #expect(replayed.accessToken == rotated.accessToken && replayed.refreshToken == rotated.refreshToken)
            #expect(rotated.expiresIn == 120 && replayed.expiresIn == 70)
            #expect(try app.count("SELECT count(*) FROM tokens WHERE kind = 'access'") == 2, "the replay issued nothing new")
        }
    }

    @Test("a replay after the grace window revokes the session, and the sealed answer is gone")
    func replayAfterGraceRevokes() async throws {
        try await TestApp.with { (app: TestApp) async throws in
            let tokens = try await app.signIn()
            let rotated = try await app.refresh(try #require(tokens.refreshToken)).decode(TokenResponse.self)
            #expect(try app.count("SELECT count(*) FROM sessions WHERE successor_box IS NOT NULL") == 1)
            app.clock.advance(seconds: 61)
            try app.application.sessions.purgeExpired()
            #expect(try app.count("SELECT count(*) FROM sessions WHERE successor_box IS NOT NULL") == 0,
                    "past the grace nothing a spent token could open is kept")

            let late = try await app.refresh(try #require(tokens.refreshToken))
            #expect(late.status == 401 && late.errorCode == "invalid_grant")
            #expect(try await app.refresh(try #require(rotated.refreshToken)).errorCode == "invalid_grant")
            #expect(await app.me(rotated.accessToken).status == 401)
        }
    }
}
