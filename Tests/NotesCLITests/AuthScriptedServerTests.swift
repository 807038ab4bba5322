import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing
@testable import notes_cli

/// Refresh rules that only a misbehaving server can show (it issues tokens and then refuses
/// them; its refresh endpoint resets the connection), against a `ScriptedHTTPServer` on a real
/// loopback socket, through the client's real transport.
@Suite("Authenticated client: a misbehaving server")
struct AuthScriptedServerTests {
    static let user = UserResource(id: 1, username: "ada", createdAt: "2026-01-01T00:00:00.000Z")

    /// A client holding a session on `server` whose access token expires in `expiresIn` seconds,
    /// stored in a fresh credentials store under `directory`.
    static func client(_ server: ScriptedHTTPServer, _ directory: TemporaryDirectory,
                       expiresIn: Double) async throws -> (APIClient, CredentialStore, StoredSession) {
        let url = try ServerURL(server.baseURL)
        let session = StoredSession(server: url.string, username: "ada", accessToken: "nat_0",
                                    accessExpiresAt: Date().timeIntervalSince1970 + expiresIn, accessLifetime: 3600,
                                    refreshToken: "nrt_0")
        let store = CredentialStore(directory: directory.appending("config"))
        try await store.update { @Sendable file in file.store(session, makeDefault: true) }
        return (APIClient(server: url, credential: .session(session, store), retryPolicy: .fast), store, session)
    }

    @Test("a request still refused after two refreshes fails with sign-in required instead of looping")
    func givesUpAfterTwoReplays() async throws {
        try await withTemporaryDirectory { directory in
            let issued = Mutex(0)
            let server = try ScriptedHTTPServer { request in
                guard request.path == "/v1/auth/refresh" else { return .error(401, "invalid_token", "The access token is expired.") }
                let number = issued.withLock { $0 += 1; return $0 }
                let answer = TokenResponse(accessToken: "nat_\(number)", expiresIn: 3600, refreshToken: "nrt_\(number)", user: Self.user)
                return .respond(status: 200, headers: ["Content-Type": "application/json"],
                                body: (try? WireJSON.encoder().encode(answer)) ?? Data())
            }
            defer { server.stop() }
            let (client, store, _) = try await Self.client(server, directory, expiresIn: 3600)

            let error = await #expect(throws: ClientError.self) { try await client.me() }
            #expect(error.map { CLI.outcome(of: $0).exitCode } == .signInRequired)
            #expect(error.map { CLI.outcome(of: $0).sentence } == "session expired or revoked: run `notes login`")
            #expect(server.requests.map(\.path) == ["/v1/me", "/v1/auth/refresh", "/v1/me", "/v1/auth/refresh", "/v1/me"])
            #expect(server.requests.filter { $0.path == "/v1/me" }.map { $0.headers["authorization"] }
                    == ["Bearer nat_0", "Bearer nat_1", "Bearer nat_2"])
            // The refreshes themselves worked, so the (rotated) session is kept for the next run.
            #expect(try store.session(for: ServerURL(server.baseURL))?.refreshToken == "nrt_2")
        }
    }

    @Test("a refresh ahead of expiry that fails on the network goes on with the still-valid token and keeps the stored tokens")
    func earlyRefreshFailureUsesTheValidToken() async throws {
        try await withTemporaryDirectory { directory in
            let user = try WireJSON.encoder().encode(Self.user)
            let server = try ScriptedHTTPServer { request in
                request.path == "/v1/auth/refresh" ? .dropConnection : .respond(status: 200, headers: [:], body: user)
            }
            defer { server.stop() }
            // 30 s left of a one-hour token: inside the one-minute refresh margin, not expired.
            let (client, store, session) = try await Self.client(server, directory, expiresIn: 30)

            #expect(try await client.me().username == "ada")
            let paths = server.requests.map(\.path)
            #expect(paths.last == "/v1/me")
            #expect(paths.filter { $0 == "/v1/auth/refresh" }.count == RetryPolicy.fast.maxAttempts)
            #expect(server.requests.last?.headers["authorization"] == "Bearer nat_0")
            #expect(try store.session(for: ServerURL(server.baseURL)) == session)
        }
    }
}
