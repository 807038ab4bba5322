import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing
@testable import notes_cli

/// The session provider keeps one account's session in step with the credentials store shared
/// by every `notes` process: what a long-lived process (`notes sync --watch`) relies on to go on
/// after another process refreshed the session, or after the user signed in again.
@Suite("Authenticated client: the session provider")
struct SessionProviderTests {
    static let user = AuthScriptedServerTests.user

    /// A server that answers every request with the user, and records the bearer tokens.
    static func quietServer() throws -> ScriptedHTTPServer {
        let body = (try? WireJSON.encoder().encode(user)) ?? Data()
        return try ScriptedHTTPServer { request in
            guard request.path == "/v1/me" else { return .error(404, "not_found", "No such thing.") }
            return .respond(status: 200, headers: ["Content-Type": "application/json"], body: body)
        }
    }

    static func session(_ server: ScriptedHTTPServer, _ tag: String) throws -> StoredSession {
        StoredSession(server: try ServerURL(server.baseURL).string, userId: user.id, username: user.username,
                      accessToken: "nat_\(tag)", accessExpiresAt: Date().timeIntervalSince1970 + 3600, accessLifetime: 3600,
                      refreshToken: "nrt_\(tag)")
    }

    @Test("a session another process stored for the same account is adopted on asking, and signs the next request")
    func adoptsTheNewerSessionOfTheSameAccount() async throws {
        try await withTemporaryDirectory { directory in
            let server = try Self.quietServer()
            defer { server.stop() }
            let store = CredentialStore(directory: directory.appending("config"))
            let ours = try Self.session(server, "ours"), theirs = try Self.session(server, "theirs")
            try await store.update { @Sendable file in file.store(ours, makeDefault: true) }
            let client = APIClient(server: try ServerURL(server.baseURL), credential: .session(ours, store), retryPolicy: .fast)

            #expect(try await client.adoptNewerSession() == nil)
            try await store.update { @Sendable file in file.store(theirs, replacing: ours, makeDefault: true) }
            #expect(try await client.adoptNewerSession() == theirs)
            #expect(try await client.adoptNewerSession() == nil)

            _ = try await client.me()
            #expect(server.requests.last?.headers["authorization"] == "Bearer nat_theirs")
        }
    }

    @Test("another account's session on the same server is never adopted")
    func ignoresOtherAccounts() async throws {
        try await withTemporaryDirectory { directory in
            let server = try Self.quietServer()
            defer { server.stop() }
            let store = CredentialStore(directory: directory.appending("config"))
            let ours = try Self.session(server, "ours")
            var other = try Self.session(server, "other")
            other.userId = 2
            other.username = "bob"
            let stored = other
            try await store.update { @Sendable file in
                file.store(ours, makeDefault: false)
                file.store(stored, makeDefault: true)
            }
            let provider = SessionProvider(server: try ServerURL(server.baseURL), session: ours, store: store)
            #expect(try provider.adoptNewerSession() == nil)
            #expect(try provider.current() == ours)
        }
    }

    @Test("a client whose session was ended goes on with the session of a new sign-in once it adopts it")
    func adoptingAfterTheSessionEndedRevivesTheClient() async throws {
        try await withTemporaryDirectory { directory in
            let server = try Self.quietServer()
            defer { server.stop() }
            let store = CredentialStore(directory: directory.appending("config"))
            let ours = try Self.session(server, "ours"), signedInAgain = try Self.session(server, "again")
            try await store.update { @Sendable file in file.store(ours, makeDefault: true) }
            let client = APIClient(server: try ServerURL(server.baseURL), credential: .session(ours, store), retryPolicy: .fast)
            // `notes logout` in another process, seen by this one's next refresh.
            try await store.update { @Sendable file in _ = file.remove(ours, ifRefreshTokenIn: [ours.refreshToken]) }
            await #expect(throws: ClientError.self) { try await client.refresh(replacing: ours) }
            await #expect(throws: ClientError.self) { try await client.me() }
            #expect(try await client.adoptNewerSession() == nil)

            try await store.update { @Sendable file in file.store(signedInAgain, makeDefault: true) }
            #expect(try await client.adoptNewerSession() == signedInAgain)
            #expect(try await client.me().username == "ada")
            #expect(server.requests.last?.headers["authorization"] == "Bearer nat_again")
        }
    }

    @Test("logout forgets the session this process held, but not a newer sign-in another process stored")
    func forgetKeepsANewerSignIn() async throws {
        try await withTemporaryDirectory { directory in
            let server = try Self.quietServer()
            defer { server.stop() }
            let store = CredentialStore(directory: directory.appending("config"))
            let ours = try Self.session(server, "ours"), newer = try Self.session(server, "newer")
            try await store.update { @Sendable file in file.store(ours, makeDefault: true) }
            let url = try ServerURL(server.baseURL)

            let provider = SessionProvider(server: url, session: ours, store: store)
            try await provider.forget()
            #expect(try store.session(for: url, userId: Self.user.id) == nil)
            #expect(throws: ClientError.self) { try provider.current() }

            try await store.update { @Sendable file in file.store(ours, makeDefault: true) }
            let stale = SessionProvider(server: url, session: ours, store: store)
            try await store.update { @Sendable file in file.store(newer, replacing: ours, makeDefault: true) }
            try await stale.forget()
            #expect(try store.session(for: url, userId: Self.user.id) == newer)
        }
    }
}
