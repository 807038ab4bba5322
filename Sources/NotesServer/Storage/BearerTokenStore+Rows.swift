import NotesCore

/// Every other statement on the `tokens` table, each run inside the caller's transaction:
/// `SessionStore` decides when access tokens are issued and ended with their sessions, and
/// `PersonalTokenStore` when personal tokens are made and revoked; the SQL is here, with the
/// lookup, so one type owns the table.
extension BearerTokenStore {
    /// A row's `kind`: an access token of a session, or a personal token (refresh tokens live
    /// with their sessions, not here).
    enum Kind: String, Sendable {
        case access
        case personal
    }

    /// Stores a new access token of session `sessionID`, valid until `expiresAt`.
    /// - Returns: its secret, which is never stored.
    static func issueAccess(userID: Int64, sessionID: Int64, now: Int64, expiresAt: Int64, in db: some SQLConnection) throws -> String {
        let secret = TokenKind.access.makeSecret()
        try db.run("""
            INSERT INTO tokens (id, hash, kind, user_id, session_id, scope, created_at, expires_at)
            VALUES (?, ?, 'access', ?, ?, 'write', ?, ?)
            """, SecureRandom.hexIdentifier(), TokenKind.digest(secret), userID, sessionID, now, expiresAt)
        return secret
    }

    /// Stores the personal token `record` under the digest of `secret`.
    static func insert(_ record: PersonalTokenRecord, secret: String, in db: some SQLConnection) throws {
        try db.run("""
            INSERT INTO tokens (id, hash, kind, user_id, name, scope, created_at, expires_at)
            VALUES (?, ?, 'personal', ?, ?, ?, ?, ?)
            """, record.id, TokenKind.digest(secret), record.userID, record.name, record.scope.rawValue, record.createdAt, record.expiresAt)
    }

    /// When the token stored under `digest` expires; `nil` when there is none or it never expires.
    static func expiry(ofDigest digest: [UInt8], in db: some SQLConnection) throws -> Int64? {
        try db.scalarInt("SELECT expires_at FROM tokens WHERE hash = ?", [digest])
    }

    /// How many personal tokens `userID` holds that still work at `now`.
    static func livePersonalCount(of userID: Int64, now: Int64, in db: some SQLConnection) throws -> Int64 {
        try db.scalarInt("""
            SELECT count(*) FROM tokens WHERE user_id = ? AND kind = 'personal' AND revoked_at IS NULL
            AND (expires_at IS NULL OR expires_at > ?)
            """, [userID, now]) ?? 0
    }

    /// The scope and expiry of `userID`'s personal token `id`, revoked or not; `nil` once it is purged.
    static func personalGrant(id: String, of userID: Int64, in db: some SQLConnection) throws -> (scope: TokenScope, expiresAt: Int64?)? {
        try db.first("SELECT scope, expires_at FROM tokens WHERE id = ? AND user_id = ? AND kind = 'personal'", [id, userID]) { row in
            (scope: TokenScope(rawValue: row.string(0)) ?? .read, expiresAt: row.isNull(1) ? nil : row.int64(1))
        }
    }

    /// `userID`'s personal tokens that still work at `now`, newest first.
    static func livePersonalTokens(of userID: Int64, now: Int64, in db: some SQLConnection) throws -> [PersonalTokenRecord] {
        try db.query("""
            SELECT id, user_id, name, scope, created_at, expires_at, last_used_at FROM tokens
            WHERE user_id = ? AND kind = 'personal' AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)
            ORDER BY created_at DESC, id
            """, [userID, now]) { row in
            PersonalTokenRecord(id: row.string(0), userID: row.int64(1), name: row.string(2),
                                scope: TokenScope(rawValue: row.string(3)) ?? .read, createdAt: row.int64(4),
                                expiresAt: row.isNull(5) ? nil : row.int64(5), lastUsedAt: row.isNull(6) ? nil : row.int64(6))
        }
    }

    /// Revokes `userID`'s live personal token `id`.
    /// - Returns: whether there was one (someone else's token counts as none).
    static func revokePersonal(id: String, of userID: Int64, now: Int64, in db: some SQLConnection) throws -> Bool {
        try db.run("""
            UPDATE tokens SET revoked_at = ? WHERE id = ? AND user_id = ? AND kind = 'personal' AND revoked_at IS NULL
            """, now, id, userID) > 0
    }

    /// Revokes every live token issued in session `sessionID`.
    static func revokeAll(ofSession sessionID: Int64, now: Int64, in db: some SQLConnection) throws {
        try db.run("UPDATE tokens SET revoked_at = ? WHERE session_id = ? AND revoked_at IS NULL", now, sessionID)
    }

    /// Revokes every live token of `kind` that `userID` holds.
    static func revokeAll(_ kind: Kind, of userID: Int64, now: Int64, in db: some SQLConnection) throws {
        try db.run("UPDATE tokens SET revoked_at = ? WHERE user_id = ? AND kind = ? AND revoked_at IS NULL", now, userID, kind.rawValue)
    }

    /// Deletes every token of `kind` that `userID` holds.
    static func deleteAll(_ kind: Kind, of userID: Int64, in db: some SQLConnection) throws {
        try db.run("DELETE FROM tokens WHERE user_id = ? AND kind = ?", userID, kind.rawValue)
    }

    /// Deletes access tokens that expired before `accessCutoff` and personal tokens revoked or
    /// expired before `endedCutoff`.
    /// - Returns: how many rows were deleted.
    static func purge(accessExpiredBefore accessCutoff: Int64, personalEndedBefore endedCutoff: Int64, in db: some SQLConnection) throws -> Int {
        let access = try db.run("DELETE FROM tokens WHERE kind = 'access' AND expires_at < ?", accessCutoff)
        let personal = try db.run("DELETE FROM tokens WHERE kind = 'personal' AND (revoked_at < ?1 OR expires_at < ?1)", endedCutoff)
        return access + personal
    }
}
