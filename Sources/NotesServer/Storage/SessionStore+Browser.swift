import NotesCore

/// How long a browser session lives: `--web-idle-ttl` and `--web-max-ttl`.
struct BrowserSessionLifetimes: Sendable {
    /// A browser session unused this long is over (default 12 hours): a borrowed computer left
    /// signed in does not stay open for the next person for days.
    var idleSeconds = 12 * 3600
    /// No browser session outlives this, however active (default 7 days).
    var absoluteSeconds = 7 * 86_400
}

/// A browser session as the web app sees it on each request.
struct BrowserSession: Sendable {
    let sessionID: Int64
    let userID: Int64
    let username: String
    /// The cookie's secret, kept for deriving the session's CSRF token.
    let cookieSecret: String
    /// The signed-in account while the session acts in a shared space (`userID` is then the
    /// space's); nil in the account's own space.
    var memberID: Int64? = nil
}

/// A session as the account page lists it: the user's own devices and browsers.
struct AccountSession: Sendable {
    let id: Int64
    let device: String
    let createdAt: Int64
    let lastUsedAt: Int64
    let isBrowser: Bool
}

/// Browser sessions: sessions of the existing kind (listed and revocable like a device) whose
/// credential is a cookie secret instead of a refresh token. Only the SHA-256 digest of the
/// secret is stored; it is looked up by digest and compared in constant time.
extension SessionStore {
    /// The prefix of a cookie secret, so a leaked one is recognisable.
    static let browserCookiePrefix = "nws_"

    /// Starts a browser session for `userID`; returns the cookie secret (the only copy).
    func createBrowserSession(userID: Int64, device: String) throws -> String {
        let now = clock.now()
        let secret = SecureRandom.token(prefix: Self.browserCookiePrefix)
        // The refresh token column needs a value; this one is never given to anyone.
        let unusedRefresh = TokenKind.refresh.makeSecret()
        try database.write { db in
            try db.run("""
                INSERT INTO sessions (user_id, device, created_at, last_used_at, refresh_hash, refresh_issued_at, web_cookie_hash)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, userID, device, now, now, TokenKind.digest(unusedRefresh), now, TokenKind.digest(secret))
        }
        return secret
    }

    /// The live browser session `secret` belongs to, or nil: unknown, revoked, the account
    /// disabled, or past its idle or absolute lifetime (an expired session is ended then).
    /// A use is recorded at most once a minute, so reading pages does not write every time.
    func browserSession(secret: String, lifetimes web: BrowserSessionLifetimes) throws -> BrowserSession? {
        guard secret.hasPrefix(Self.browserCookiePrefix), secret.utf8.count == TokenKind.secretLength else { return nil }
        let digest = TokenKind.digest(secret)
        let now = clock.now()
        let found = try database.read { db in
            try db.first("""
                SELECT s.id, s.user_id, u.username, s.created_at, s.last_used_at, s.revoked_at IS NOT NULL, u.disabled, s.web_cookie_hash
                FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.web_cookie_hash = ?
                """, [digest]) { row in
                (id: row.int64(0), userID: row.int64(1), username: row.string(2), createdAt: row.int64(3), lastUsedAt: row.int64(4),
                 revoked: row.bool(5), disabled: row.bool(6), hash: row.bytes(7))
            }
        }
        guard let found, ConstantTime.equal(found.hash, digest), !found.revoked, !found.disabled else { return nil }
        if Self.isBrowserSessionExpired(createdAt: found.createdAt, lastUsedAt: found.lastUsedAt, now: now, lifetimes: web) {
            try revoke(sessionID: found.id)
            return nil
        }
        if now - found.lastUsedAt >= 60_000 {
            try database.write { db in
                try db.run("UPDATE sessions SET last_used_at = ? WHERE id = ? AND last_used_at < ?", now, found.id, now)
            }
        }
        return BrowserSession(sessionID: found.id, userID: found.userID, username: found.username, cookieSecret: secret)
    }

    /// Whether a browser session is past its idle or absolute lifetime at `now`.
    static func isBrowserSessionExpired(createdAt: Int64, lastUsedAt: Int64, now: Int64, lifetimes: BrowserSessionLifetimes) -> Bool {
        now - lastUsedAt > Int64(lifetimes.idleSeconds) * 1000 || now - createdAt > Int64(lifetimes.absoluteSeconds) * 1000
    }

    /// `userID`'s sessions that still work, newest first: devices signed in through the API and
    /// browsers, each judged by its own lifetimes.
    func activeSessions(of userID: Int64, browserLifetimes web: BrowserSessionLifetimes) throws -> [AccountSession] {
        let now = clock.now()
        let rows = try database.read { db in
            try db.query("""
                SELECT id, device, created_at, last_used_at, web_cookie_hash IS NOT NULL FROM sessions
                WHERE user_id = ? AND revoked_at IS NULL ORDER BY last_used_at DESC, id DESC
                """, [userID]) { row in
                AccountSession(id: row.int64(0), device: row.string(1), createdAt: row.int64(2), lastUsedAt: row.int64(3), isBrowser: row.bool(4))
            }
        }
        return rows.filter { session in
            session.isBrowser
                ? !Self.isBrowserSessionExpired(createdAt: session.createdAt, lastUsedAt: session.lastUsedAt, now: now, lifetimes: web)
                : !isExpired(createdAt: session.createdAt, lastUsedAt: session.lastUsedAt, now: now)
        }
    }

    /// Ends `userID`'s session `sessionID` (someone else's id changes nothing).
    /// - Returns: whether a session of theirs was ended.
    @discardableResult
    func revoke(sessionID: Int64, of userID: Int64) throws -> Bool {
        let owned = try database.read { db in
            try db.scalarInt("SELECT id FROM sessions WHERE id = ? AND user_id = ? AND revoked_at IS NULL", [sessionID, userID]) != nil
        }
        guard owned else { return false }
        return try revoke(sessionID: sessionID)
    }
}
