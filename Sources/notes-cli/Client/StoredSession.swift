import Foundation
import NotesCore

/// One signed-in session as kept in `credentials.json`: whose it is, the tokens and when the
/// access token stops working. Holds secrets, so it is deliberately not
/// `CustomStringConvertible`: printing it by accident shows only a redacted summary.
struct StoredSession: Codable, Sendable, Equatable, CustomDebugStringConvertible {
    /// The canonical server URL (`ServerURL.string`).
    var server: String
    /// The server's id of the user, the account's key. Nil only for a session kept from the
    /// one-account-per-server file of earlier versions, until its first use tells whose it is.
    var userId: Int64?
    var username: String
    var accessToken: String
    /// When the access token expires, in seconds since 1970. Wall-clock time because the file
    /// outlives the process; it is computed from `expires_in` at receipt, so the server's clock
    /// never matters (only our own clock jumping could make us refresh early or late, and a late
    /// refresh is repaired by the 401 path).
    var accessExpiresAt: Double
    /// How long the access token was issued for, in seconds; sets how early we refresh.
    var accessLifetime: Double
    var refreshToken: String

    /// The issue asks for a refresh when under a minute is left. For tokens that live a minute
    /// or less (tests run with 1–2 s) that would mean refreshing before every request, so the
    /// margin is at most half the token's lifetime.
    var refreshMargin: Double { min(60, accessLifetime / 2) }

    /// Whether the access token should be replaced before the next request.
    func needsRefresh(at now: Date) -> Bool {
        now.timeIntervalSince1970 >= accessExpiresAt - refreshMargin
    }

    /// Whether the access token is already past its expiry.
    func isExpired(at now: Date) -> Bool {
        now.timeIntervalSince1970 >= accessExpiresAt
    }

    /// The account this session signs in as, once known.
    var account: AccountName? { userId.map { AccountName(userId: $0, username: username) } }

    var debugDescription: String { "StoredSession(server: \(server), username: \(username), tokens: <redacted>)" }
}

extension StoredSession {
    /// Builds the session from a login or refresh answer received at `now`.
    init(server: ServerURL, response: TokenResponse, refreshToken: String, now: Date) {
        self.init(server: server.string, userId: response.user.id, username: response.user.username,
                  accessToken: response.accessToken,
                  accessExpiresAt: now.timeIntervalSince1970 + Double(max(response.expiresIn, 0)),
                  accessLifetime: Double(max(response.expiresIn, 0)), refreshToken: refreshToken)
    }
}

/// An account on a server: the user id that identifies it for good, and the name people know.
struct AccountName: Codable, Sendable, Equatable, CustomStringConvertible {
    var userId: Int64
    var username: String

    init(userId: Int64, username: String) {
        self.userId = userId
        self.username = username
    }

    init(_ user: UserResource) {
        self.init(userId: user.id, username: user.username)
    }

    var description: String { username }
}
