import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The authenticated client's refresh rules, against an in-memory server with exact control.
@Suite("Authenticated client: refresh and replay")
struct AuthRefreshTests {
    let server: ServerURL

    init() throws {
        server = try ServerURL("http://127.0.0.1:9")
    }

    /// A client whose stored session is `session`, kept in a fresh store under `directory`.
    func client(_ fake: ClientFakeServer, _ session: StoredSession, _ directory: TemporaryDirectory) async throws -> (APIClient, CredentialStore) {
        let store = CredentialStore(directory: directory.appending("config"))
        try await store.update { @Sendable file in file.servers[session.server] = session }
        return (APIClient(server: server, credential: .session(session, store), transport: fake, retryPolicy: .fast), store)
    }

    @Test("20 concurrent requests that all get 401 share exactly one refresh, and late 401s replay without refreshing")
    func concurrentRejectionsShareOneRefresh() async throws {
        try await withTemporaryDirectory { directory in
            let fake = ClientFakeServer(refreshDelay: .milliseconds(100))
            let access = fake.issueSession()
            // Locally the token looks valid for an hour; the server has already expired it.
            let (client, store) = try await client(fake, makeSession(server: server, access: access, refresh: "nrt_0", expiresIn: 3600), directory)
            fake.expireAllAccessTokens()
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 { group.addTask { try await client.me().username } }
                for try await name in group { #expect(name == "ada") }
            }
            #expect(fake.refreshCalls == 1)
            #expect(fake.requests.filter { $0 == "GET /v1/me" }.count == 40)
            let stored = try #require(try store.session(for: server))
            #expect(stored.refreshToken == fake.state.withLock { $0.currentRefresh })
        }
    }

    @Test("a 401 that arrives after its token was already replaced replays with the new token and refreshes nothing")
    func late401DoesNotRefreshAgain() async throws {
        try await withTemporaryDirectory { directory in
            let fake = ClientFakeServer(refreshDelay: .zero)
            let access = fake.issueSession()
            let held = makeSession(server: server, access: access, refresh: "nrt_0", expiresIn: 3600)
            let (client, _) = try await client(fake, held, directory)
            let first = try await client.refresh(replacing: held)
            // A second request that was sent with `held` before the refresh now reports its 401.
            let late = try await client.refresh(replacing: held)
            #expect(late == first)
            #expect(late.accessToken != access)
            #expect(fake.refreshCalls == 1)
        }
    }

    @Test("an access token about to expire is refreshed once before concurrent requests are sent")
    func refreshesAheadOfExpiry() async throws {
        try await withTemporaryDirectory { directory in
            let fake = ClientFakeServer()
            let access = fake.issueSession()
            let (client, _) = try await client(fake, makeSession(server: server, access: access, refresh: "nrt_0", expiresIn: 30), directory)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<10 { group.addTask { _ = try await client.me() } }
                try await group.waitForAll()
            }
            #expect(fake.refreshCalls == 1)
            #expect(fake.requests.first == "POST /v1/auth/refresh")
            // Every request went out with the new token: none came back 401, so there are no replays.
            #expect(fake.requests.filter { $0 == "GET /v1/me" }.count == 10)
        }
    }

    @Test("a request still refused after two refreshes fails with sign-in required instead of looping")
    func givesUpAfterTwoReplays() async throws {
        try await withTemporaryDirectory { directory in
            let fake = ClientFakeServer()
            let access = fake.issueSession()
            fake.state.withLock { $0.rejectEveryAccessToken = true }
            let (client, _) = try await client(fake, makeSession(server: server, access: access, refresh: "nrt_0", expiresIn: 3600), directory)
            let error = await #expect(throws: CLIError.self) { try await client.me() }
            #expect(error?.exitCode == .signInRequired)
            #expect(error?.message == "session expired or revoked: run `notes login`")
            #expect(fake.refreshCalls == 2)
            #expect(fake.requests.filter { $0 == "GET /v1/me" }.count == 3)
        }
    }

    @Test("a refresh that fails on the network keeps the stored tokens and reports the server unreachable")
    func networkFailureKeepsTokens() async throws {
        try await withTemporaryDirectory { directory in
            let fake = ClientFakeServer(refreshDelay: .zero)
            fake.state.withLock { $0.refreshFailsWithNetwork = true }
            let session = makeSession(server: server, access: "nat_old", refresh: "nrt_0", expiresIn: -5)
            let (client, store) = try await client(fake, session, directory)
            let error = await #expect(throws: CLIError.self) { try await client.me() }
            #expect(error?.exitCode == .serverUnreachable)
            #expect(try store.session(for: server) == session)
        }
    }

    @Test("invalid_grant forgets the stored session when it is the one that failed")
    func invalidGrantClearsMatchingTokens() async throws {
        try await withTemporaryDirectory { directory in
            let fake = ClientFakeServer(refreshDelay: .zero)
            _ = fake.issueSession(refresh: "nrt_current")
            let (client, store) = try await client(fake, makeSession(server: server, access: "nat_x", refresh: "nrt_spent", expiresIn: -5), directory)
            let error = await #expect(throws: CLIError.self) { try await client.me() }
            #expect(error?.exitCode == .signInRequired)
            #expect(try store.session(for: server) == nil)
            // Once known dead, later requests fail at once without another refresh.
            await #expect(throws: CLIError.self) { try await client.me() }
            #expect(fake.refreshCalls == 1)
        }
    }

    @Test("tokens rotated by another process are adopted, never overwritten or cleared")
    func adoptsTokensRotatedElsewhere() async throws {
        try await withTemporaryDirectory { directory in
            let fake = ClientFakeServer(refreshDelay: .zero)
            // This process holds an expired session whose refresh token the server no longer
            // accepts; another process has already rotated and stored a newer, valid one.
            let (client, store) = try await client(fake, makeSession(server: server, access: "nat_stale", refresh: "nrt_spent", expiresIn: -5), directory)
            let newerAccess = fake.issueSession(refresh: "nrt_newer")
            let newer = makeSession(server: server, access: newerAccess, refresh: "nrt_newer", expiresIn: 3600)
            try await store.update { @Sendable file in file.servers[newer.server] = newer }
            #expect(try await client.me().username == "ada")
            #expect(fake.refreshCalls == 0)
            #expect(try store.session(for: server) == newer)
        }
    }
}
