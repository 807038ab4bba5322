import Foundation
import NotesCore

/// Signs a WebDAV request in: HTTP Basic with the username and a personal access token as the
/// app password, or a bearer token as the API takes it.
///
/// Apps send Basic credentials with every request and often keep them in plain text, so the
/// account password is refused here with a message that says what to use instead: a token can
/// be revoked alone and limited to reading. Every Basic attempt counts in the sign-in throttle
/// as a password sign-in does (a success gives its attempt back), so guessing tokens through
/// `/dav` is as slow as guessing passwords. The secret never reaches a log line or a message.
struct DAVAuthenticator: Sendable {
    let tokens: TokenAuthenticator
    let throttle: LoginThrottle

    /// The caller of `request`.
    /// - Throws: 401 with a Basic challenge when no credentials came or they do not sign in,
    ///   429 while the throttle makes the account or address wait.
    func authenticate(_ request: HTTPRequest) throws -> Principal {
        guard let header = request.headers["Authorization"] else { throw Self.challenge("Sign in with your username and a personal access token.") }
        let scheme = header.prefix { $0 != " " }.lowercased()
        if scheme == "bearer" {
            do {
                return try tokens.authenticate(request)
            } catch let error as HTTPError where error.status == 401 {
                throw Self.challenge(error.message)
            }
        }
        guard scheme == "basic", let credentials = Self.basicCredentials(header.dropFirst(scheme.count)) else {
            throw Self.challenge("Sign in with HTTP Basic: your username and a personal access token.")
        }
        let attempt = try throttle.begin(username: credentials.username, address: request.remoteAddress)
        guard let kind = TokenKind.of(credentials.secret), kind != .refresh else {
            throw Self.challenge("""
                WebDAV takes a personal access token as the password, never the account password: create one under Personal access \
                tokens on the web app's Account page (read scope to read, write scope to change notes) and use it as this app's password.
                """)
        }
        let principal: Principal
        do {
            principal = try tokens.authenticate(secret: credentials.secret)
        } catch let error as HTTPError where error.status == 401 {
            throw Self.challenge(error.message)
        }
        guard UserStore.key(principal.username) == UserStore.key(credentials.username) else {
            throw Self.challenge("The token does not belong to this username.")
        }
        throttle.succeeded(attempt)
        return principal
    }

    /// The username and password of a Basic header's rest (`  dXNlcjpwYXNz`), or nil when it
    /// is not base64 of UTF-8 `user:password`.
    static func basicCredentials(_ rest: Substring) -> (username: String, secret: String)? {
        let encoded = rest.trimmingCharacters(in: .whitespaces)
        guard let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8),
              let colon = text.firstIndex(of: ":") else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// 401 with the Basic challenge WebDAV clients answer by asking for a username and password.
    static func challenge(_ message: String) -> HTTPError {
        HTTPError(401, code: "unauthenticated", message: message,
                  headers: ["WWW-Authenticate": #"Basic realm="notes", charset="UTF-8""#])
    }
}
