import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Password sign-in: `POST /v1/auth/login`, then the session is stored for later commands.
enum SignIn {
    /// Signs in and stores the session under `server`, replacing any earlier one.
    /// - Throws: `CLIError` exit 1 for wrong credentials or too many attempts, exit 5 when the
    ///   server cannot be reached; `APIStatusError` for other refusals.
    static func login(server: ServerURL, username: String, password: String, store: CredentialStore) async throws -> StoredSession {
        let client = APIClient(server: server, credential: .anonymous)
        let body = LoginRequest(username: username, password: password, device: deviceName())
        // Not idempotent: retried only when the connection never opened (see `sendRetrying`).
        let request = try APIRequest.json("POST", "/v1/auth/login", body, authenticated: false)
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch let error as APIStatusError where error.status == 401 {
            throw CLIError.failure("wrong username or password for \(server)")
        } catch let error as APIStatusError where error.status == 429 {
            let wait = error.retryAfter.map { " in \(Int($0.rounded(.up))) s" } ?? " later"
            throw CLIError.failure("too many sign-in attempts on \(server): try again\(wait)")
        }
        let answer = try client.decode(TokenResponse.self, from: response, what: "POST /v1/auth/login")
        guard let refreshToken = answer.refreshToken else {
            throw CLIError.failure("\(server) signed in without a refresh token, so the session could not be kept")
        }
        let session = StoredSession(server: server, response: answer, refreshToken: refreshToken, now: Date())
        try await store.update { @Sendable file in
            file.servers[server.string] = session
        }
        return session
    }

    /// Names the session on the server's side, so the user can tell their machines apart.
    static func deviceName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "notes" }
        let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return host.isEmpty ? "notes" : "notes on \(host)"
    }
}
