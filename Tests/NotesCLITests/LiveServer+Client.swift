import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The client's view of a live server: the real `notes` run in the server's private HOME, and
/// the in-process client on the session it stored there.
extension LiveServer {
    /// Runs `notes ARGS` and checks that no token or password appears in anything it printed.
    @discardableResult
    func notes(_ arguments: [String], environment extra: [String: String] = [:], stdin: String? = nil,
               sourceLocation: SourceLocation = #_sourceLocation) async throws -> ProcessResult {
        let result = try await ProcessRunner.run(BuiltProducts.client, arguments,
                                                 environment: environment.merging(extra) { $1 }, stdin: stdin)
        for secret in ["nat_", "nrt_", TestAccount.password] {
            #expect(!result.stdout.contains(secret), "stdout of notes \(arguments) shows a secret", sourceLocation: sourceLocation)
            #expect(!result.stderr.contains(secret), "stderr of notes \(arguments) shows a secret", sourceLocation: sourceLocation)
        }
        return result
    }

    /// `notes login` with the password on stdin; expects success.
    func login(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let result = try await notes(["login", "--server", serverURL, "--username", TestAccount.username, "--password-stdin"],
                                     stdin: TestAccount.password + "\n", sourceLocation: sourceLocation)
        // The server's last log lines too: a sign-in that hangs must say where it stopped.
        #expect(result.exitCode == 0, "login failed: \(result.stderr)\nserver log:\n\(server.log.split(separator: "\n").suffix(15).joined(separator: "\n"))",
                sourceLocation: sourceLocation)
    }

    /// The session the client stored for this server.
    func storedSession() throws -> StoredSession? {
        try CredentialStore(directory: configDirectory.appendingPathComponent("notes")).session(for: ServerURL(serverURL))
    }

    /// The credentials store the real `notes` binary uses in this HOME.
    var store: CredentialStore { CredentialStore(directory: configDirectory.appendingPathComponent("notes")) }

    /// Marks the stored session's access token as expired (as an hour later would), stores
    /// that, and returns it: the next command must refresh before its request.
    @discardableResult
    func expireStoredAccessToken() async throws -> StoredSession {
        var held = try #require(try storedSession())
        held.accessExpiresAt = Date().timeIntervalSince1970 - 1
        let stale = held
        try await store.update { @Sendable file in file.store(stale, makeDefault: true) }
        return stale
    }

    /// The in-process client on the stored session, for setting up data through the real API.
    func apiClient() throws -> APIClient {
        try ClientFactory(environment: environment).client(server: serverURL)
    }

    /// An in-process client that holds `session` (as a process that read it earlier would),
    /// sharing this HOME's credentials store with the `notes` binary.
    /// - Parameter now: the client's clock: a test moves it to a token's refresh margin or past
    ///   its expiry rather than waiting for either.
    func apiClient(holding session: StoredSession, retryPolicy: RetryPolicy = .standard,
                   now: @escaping @Sendable () -> Date = { Date() }) throws -> APIClient {
        APIClient(server: try ServerURL(serverURL), credential: .session(session, store), retryPolicy: retryPolicy, now: now)
    }

    /// Creates notes through `PUT /v1/notes/{id}` with `If-None-Match: *`.
    func createNotes(_ notes: [(path: String, content: String)]) async throws {
        let client = try apiClient()
        for note in notes {
            var request = try APIRequest.json("PUT", "/v1/notes/\(NoteID().value)", PutNoteRequest(path: note.path, content: note.content))
            request.headers["If-None-Match"] = "*"
            _ = try await client.send(request)
        }
    }

    /// How many request-log lines of the server contain `fragment`, such as `POST /v1/auth/refresh `.
    func logCount(_ fragment: String) -> Int {
        server.log.split(separator: "\n").filter { $0.contains(fragment) }.count
    }
}

/// A quick retry policy so tests of retries take milliseconds.
extension RetryPolicy {
    static let fast = RetryPolicy(maxAttempts: 4, baseDelay: 0.001, maxDelay: 0.004, maxRetryAfter: 0.05)
}
