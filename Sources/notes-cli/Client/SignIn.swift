import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Password sign-in: `POST /v1/auth/login`, then the session is stored for later commands.
enum SignIn {
    /// Signs in and stores the session as the account's on `server`, beside the other accounts
    /// signed in there, and makes it the default account. A session this store already held
    /// for the same account is replaced, and the server is asked to revoke it in the same
    /// request (`replaces_refresh_token`), so signing in again leaves one session per device.
    /// - Throws: `SignInError` for wrong credentials or too many attempts, `ClientError` when the
    ///   server cannot be reached or refuses otherwise.
    /// `device` names the session on the server (`notes log` shows it beside each change).
    static func login(server: ServerURL, username: String, password: String, store: CredentialStore,
                      device: String = deviceName()) async throws -> StoredSession {
        let client = APIClient(server: server, credential: .anonymous)
        // User names are exact on the server; its check that the token is this user's is the real one.
        let previous = try store.load().sessions(server: server.string).first { $0.username == username }
        var body = LoginRequest(username: username, password: password, device: device)
        body.replacesRefreshToken = previous?.refreshToken
        // Not idempotent: retried only when the connection never opened (see `sendRetrying`).
        let request = try APIRequest.json("POST", "/v1/auth/login", body, authenticated: false)
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch ClientError.status(let error) where error.status == 401 {
            throw SignInError.wrongPassword(server: server)
        } catch ClientError.status(let error) where error.status == 429 {
            throw SignInError.tooManyAttempts(server: server, retryAfter: error.retryAfter)
        }
        let answer = try client.decode(TokenResponse.self, from: response, what: "POST /v1/auth/login")
        guard let refreshToken = answer.refreshToken else {
            throw SignInError.noRefreshToken(server: server)
        }
        let session = StoredSession(server: server, response: answer, refreshToken: refreshToken, now: Date())
        try await store.update { @Sendable file in
            // Replaced: the same account's session, or the same name's from a version 1 file.
            let old = file.session(server: server.string, userId: session.userId)
                ?? file.session(server: server.string, userId: nil).flatMap { $0.username == session.username ? $0 : nil }
            file.store(session, replacing: old, makeDefault: true)
        }
        return session
    }

    /// Stores the session a device-code or browser sign-in's `tokens` open as the account's on
    /// `server`, replacing the one this store held for the same account, and makes it the
    /// default account.
    /// - Throws: `SignInError.noRefreshToken` for an answer without a refresh token.
    static func keep(_ tokens: TokenResponse, server: ServerURL, store: CredentialStore) async throws -> StoredSession {
        guard let refreshToken = tokens.refreshToken else {
            throw SignInError.noRefreshToken(server: server)
        }
        let session = StoredSession(server: server, response: tokens, refreshToken: refreshToken, now: Date())
        try await store.update { @Sendable file in
            file.store(session, replacing: file.session(server: server.string, userId: session.userId), makeDefault: true)
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
