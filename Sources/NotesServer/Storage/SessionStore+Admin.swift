import NotesCore

/// A session as an administrator sees it: who, which device, since when, and whether it still works.
struct SessionRecord: Sendable {
    /// Whether a session can still refresh.
    enum State: String, Sendable {
        case active
        case revoked
        case expired
    }

    let id: Int64
    let username: String
    let device: String
    let createdAt: Int64
    let lastUsedAt: Int64
    let state: State
}

/// Listing and housekeeping of sessions, for admin commands and the server's purge timer.
extension SessionStore {
    /// Ended sessions (and revoked or expired personal tokens) stay this long, so administrators
    /// and users can still see what ended and why, then they are deleted.
    static let endedRetentionMilliseconds: Int64 = 7 * 86_400_000

    /// Sessions, newest first: every user's, or only `username`'s.
    /// - Parameter includeEnded: also list revoked and expired sessions not yet purged.
    func list(username: String? = nil, includeEnded: Bool = false) throws -> [SessionRecord] {
        let now = clock.now()
        let sessions = try database.read { db in
            try db.query("""
                SELECT s.id, u.username, s.device, s.created_at, s.last_used_at, s.revoked_at IS NOT NULL
                FROM sessions s JOIN users u ON u.id = s.user_id
                WHERE ?1 IS NULL OR u.username_key = ?1
                ORDER BY s.created_at DESC, s.id DESC
                """, [username.map(UserStore.key)]) { row in
                (id: row.int64(0), username: row.string(1), device: row.string(2), createdAt: row.int64(3),
                 lastUsedAt: row.int64(4), revoked: row.bool(5))
            }
        }
        return sessions.map { session in
            let state: SessionRecord.State = session.revoked ? .revoked
                : isExpired(createdAt: session.createdAt, lastUsedAt: session.lastUsedAt, now: now) ? .expired : .active
            return SessionRecord(id: session.id, username: session.username, device: session.device,
                                 createdAt: session.createdAt, lastUsedAt: session.lastUsedAt, state: state)
        }.filter { includeEnded || $0.state == .active }
    }

    /// Ends every active session of `userID`.
    /// - Returns: how many sessions were ended.
    @discardableResult
    func revokeAll(userID: Int64) throws -> Int {
        let now = clock.now()
        defer { tokenChecks?.forgetAll() }
        return try database.write { db in try Self.revokeAll(of: userID, in: db, now: now) }
    }

    /// Ends every active session of `userID` and the access tokens issued in them, inside the
    /// caller's transaction (a password change or a disabled account ends them with it).
    /// - Returns: how many sessions were ended.
    @discardableResult
    static func revokeAll(of userID: Int64, in db: some SQLConnection, now: Int64) throws -> Int {
        let count = try db.run("UPDATE sessions SET revoked_at = ?, successor_box = NULL WHERE user_id = ? AND revoked_at IS NULL", now, userID)
        try BearerTokenStore.revokeAll(.access, of: userID, now: now, in: db)
        return count
    }

    /// Deletes every session of `userID`, with its spent refresh tokens and access tokens,
    /// inside the caller's transaction (the account is being deleted).
    static func deleteAll(of userID: Int64, in db: some SQLConnection) throws {
        try BearerTokenStore.deleteAll(.access, of: userID, in: db)
        try db.run("DELETE FROM spent_refresh_tokens WHERE session_id IN (SELECT id FROM sessions WHERE user_id = ?)", userID)
        try db.run("DELETE FROM sessions WHERE user_id = ?", userID)
    }

    /// Whether a session is past its idle or absolute lifetime at `now`.
    func isExpired(createdAt: Int64, lastUsedAt: Int64, now: Int64) -> Bool {
        now - lastUsedAt > Int64(lifetimes.refreshIdleSeconds) * 1000 || now - createdAt > Int64(lifetimes.refreshAbsoluteSeconds) * 1000
    }

    /// Expired access tokens are kept at least this long (and at least one more lifetime), so a
    /// client that presents one soon after is told "expired" rather than "unknown".
    static let expiredAccessRetentionSeconds = 5

    /// Deletes credentials nobody can use any more, so the tables do not grow without end:
    /// access tokens once they have been expired for `expiredAccessRetentionSeconds` or one more
    /// lifetime, whichever is longer, and sessions and personal tokens that ended more than
    /// `endedRetentionMilliseconds` ago (with their spent refresh tokens); and the sealed answers
    /// of rotations whose grace window has ended.
    /// - Returns: how many rows were deleted.
    @discardableResult
    func purgeExpired() throws -> Int {
        let now = clock.now()
        let accessCutoff = now - Int64(max(lifetimes.accessSeconds, Self.expiredAccessRetentionSeconds)) * 1000
        let endedCutoff = now - Self.endedRetentionMilliseconds
        let idleCutoff = endedCutoff - Int64(lifetimes.refreshIdleSeconds) * 1000
        let absoluteCutoff = endedCutoff - Int64(lifetimes.refreshAbsoluteSeconds) * 1000
        return try database.write { db in
            var deleted = try BearerTokenStore.purge(accessExpiredBefore: accessCutoff, personalEndedBefore: endedCutoff, in: db)
            // Deleting a session cascades to its spent refresh tokens and any access tokens left.
            deleted += try db.run("""
                DELETE FROM sessions WHERE revoked_at < ? OR last_used_at < ? OR created_at < ?
                """, endedCutoff, idleCutoff, absoluteCutoff)
            try forgetEndedGrace(db, now: now)
            return deleted
        }
    }
}
