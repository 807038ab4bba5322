import NotesCore

/// The tokens handed out at sign-in or refresh. The secrets exist only in this value, on their
/// way to the client; the database keeps their digests.
struct IssuedTokens: Sendable, Equatable {
    let accessToken: String
    let accessExpiresIn: Int
    let refreshToken: String
}

/// How long tokens live; the defaults follow common OAuth practice (RFC 9700).
struct TokenLifetimes: Sendable {
    /// Access tokens: short, so a leaked one is worth little (`--access-token-ttl`).
    var accessSeconds = 3600
    /// A session unused this long must sign in again (`--refresh-idle-ttl`).
    var refreshIdleSeconds = 30 * 86_400
    /// No session outlives this, however active (`--refresh-max-ttl`).
    var refreshAbsoluteSeconds = 365 * 86_400
    /// How long the previous refresh token still works after a rotation, so a response lost on
    /// the network does not sign the user out.
    var refreshGraceSeconds = 60
}

/// Why a refresh token was refused: RFC 6749's `invalid_grant`, with a sentence for the user.
enum SessionError: Error, Sendable, Equatable {
    case invalidGrant(String)
}

/// Sessions: sign-in, refresh-token rotation with reuse detection, and sign-out.
///
/// A rotation keeps its answer (the new refresh and access tokens) for the grace window,
/// encrypted under a key derived from the refresh token it spent, so a client that lost the
/// answer and presents the spent token again gets the same tokens back: the session never forks,
/// however many replays race, and whichever server sharing the database receives them. Nothing
/// stored is usable without the spent token itself, and the sealed answer is deleted when the
/// grace window ends.
struct SessionStore: Sendable {
    let database: ServerDatabase
    let clock: ServerClock
    let lifetimes: TokenLifetimes
    /// Told once a change that can stop a token committed, so this server's kept token rows
    /// (`GET /v1/notes/{id}`) do not outlive it; `nil` for admin commands, which have none.
    var tokenChecks: TokenCheckCache? = nil

    /// Separates the key that seals a rotation's answer from every other use of the token.
    private static let successorKeyContext = "notes refresh successor v1"

    /// One session as the refresh path reads it.
    private struct SessionRow {
        let id: Int64
        let userID: Int64
        let createdAt: Int64
        let lastUsedAt: Int64
        let revoked: Bool
        let userDisabled: Bool
        let refreshHash: [UInt8]
        let previousHash: [UInt8]?
        let previousRotatedAt: Int64?
        let successorBox: [UInt8]?

        static let columns = """
            s.id, s.user_id, s.created_at, s.last_used_at, s.revoked_at IS NOT NULL, u.disabled,
            s.refresh_hash, s.previous_refresh_hash, s.previous_rotated_at, s.successor_box
            """

        init(_ row: any SQLRow) {
            id = row.int64(0)
            userID = row.int64(1)
            createdAt = row.int64(2)
            lastUsedAt = row.int64(3)
            revoked = row.bool(4)
            userDisabled = row.bool(5)
            refreshHash = row.bytes(6)
            previousHash = row.isNull(7) ? nil : row.bytes(7)
            previousRotatedAt = row.isNull(8) ? nil : row.int64(8)
            successorBox = row.isNull(9) ? nil : row.bytes(9)
        }
    }

    /// Starts a session for `userID` and issues its first tokens. When `replacedRefreshToken`
    /// is the current, previous or any spent refresh token of another of `userID`'s sessions
    /// (the one this device held before), that session ends in the same transaction, so a
    /// device keeps one session. A token that is malformed, unknown or another user's changes
    /// nothing and says nothing.
    func create(userID: Int64, device: String, replacing replacedRefreshToken: String? = nil) throws -> IssuedTokens {
        let now = clock.now()
        let refresh = TokenKind.refresh.makeSecret()
        // The replaced session ends with this commit.
        defer { if replacedRefreshToken != nil { tokenChecks?.forgetAll() } }
        return try database.write { db in
            if let replacedRefreshToken, TokenKind.of(replacedRefreshToken) == .refresh,
               let replaced = try session(of: userID, holding: TokenKind.digest(replacedRefreshToken), db) {
                try revoke(db, sessionID: replaced, now: now)
            }
            let sessionID = try db.scalarInt("""
                INSERT INTO sessions (user_id, device, created_at, last_used_at, refresh_hash, refresh_issued_at)
                VALUES (?, ?, ?, ?, ?, ?) RETURNING id
                """, [userID, device, now, now, TokenKind.digest(refresh), now]) ?? 0
            let access = try issueAccess(db, userID: userID, sessionID: sessionID, now: now)
            return IssuedTokens(accessToken: access, accessExpiresIn: lifetimes.accessSeconds, refreshToken: refresh)
        }
    }

    /// Rotates `refreshToken`: returns new tokens and spends the old one. The previous token
    /// presented again within the grace window gets the answer its rotation gave; any other spent
    /// token presented again revokes the whole session, since either the client or an attacker
    /// holds a copy (RFC 9700 §4.14).
    /// - Throws: `SessionError.invalidGrant` when the token cannot be used.
    func refresh(_ refreshToken: String) throws -> (userID: Int64, tokens: IssuedTokens) {
        guard TokenKind.of(refreshToken) == .refresh else { throw SessionError.invalidGrant("The refresh token is malformed.") }
        let digest = TokenKind.digest(refreshToken)
        let now = clock.now()
        // One transaction (BEGIN IMMEDIATE), so concurrent replays, in this process or another
        // sharing the database, are decided one after the other. It commits a revocation before
        // answering invalid_grant, hence the Result rather than a throw.
        // Concurrent uses of one token (a client's processes racing, replays) wait for each other.
        let lockKey = digest.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        let outcome: Result<(Int64, IssuedTokens), SessionError> = try database.write(serializedBy: lockKey) { db in
            try forgetEndedGrace(db, now: now)
            if let session = try db.first("SELECT \(SessionRow.columns) FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.refresh_hash = ?",
                                          [digest], row: SessionRow.init) {
                guard ConstantTime.equal(session.refreshHash, digest) else { return .failure(.invalidGrant("The refresh token is not valid.")) }
                if let failure = try check(db, session, now: now) { return .failure(failure) }
                return .success((session.userID, try rotate(db, session, spent: refreshToken, spentDigest: digest, now: now)))
            }
            if let session = try db.first("SELECT \(SessionRow.columns) FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.previous_refresh_hash = ?",
                                          [digest], row: SessionRow.init),
               let previousHash = session.previousHash, ConstantTime.equal(previousHash, digest),
               let rotatedAt = session.previousRotatedAt, lifetimes.refreshGraceSeconds > 0,
               now - rotatedAt <= Int64(lifetimes.refreshGraceSeconds) * 1000 {
                if let failure = try check(db, session, now: now) { return .failure(failure) }
                // The client lost the last answer (or another of its processes got it first):
                // answer what the rotation answered, so every caller holds the same live tokens.
                guard let tokens = try replayedAnswer(db, session, spent: refreshToken, now: now) else {
                    return .failure(.invalidGrant("The refresh token was already used. Sign in again."))
                }
                try db.run("UPDATE sessions SET last_used_at = ? WHERE id = ? AND last_used_at < ?", now, session.id, now)
                return .success((session.userID, tokens))
            }
            if let sessionID = try db.scalarInt("SELECT session_id FROM spent_refresh_tokens WHERE hash = ?", [digest]) {
                try revoke(db, sessionID: sessionID, now: now)
                return .failure(.invalidGrant("The refresh token was already used; the session has been ended for safety. Sign in again."))
            }
            return .failure(.invalidGrant("The refresh token is not valid."))
        }
        // A refusal may have ended the session (reuse detected, or expired): its access tokens with it.
        if case .failure = outcome { tokenChecks?.forgetAll() }
        return try outcome.get()
    }

    /// Ends the session: its refresh token and every access token issued in it stop working.
    /// - Returns: whether the session existed and was still active.
    @discardableResult
    func revoke(sessionID: Int64) throws -> Bool {
        defer { tokenChecks?.forgetAll() }
        return try database.write { db in
            let active = try db.scalarInt("SELECT id FROM sessions WHERE id = ? AND revoked_at IS NULL", [sessionID]) != nil
            try revoke(db, sessionID: sessionID, now: clock.now())
            return active
        }
    }

    /// The id of `userID`'s session whose current, previous or a spent refresh token has `digest`.
    private func session(of userID: Int64, holding digest: [UInt8], _ db: some SQLConnection) throws -> Int64? {
        try db.scalarInt("""
            SELECT id FROM sessions WHERE user_id = ?1 AND (refresh_hash = ?2 OR previous_refresh_hash = ?2)
            UNION SELECT t.session_id FROM spent_refresh_tokens t JOIN sessions s ON s.id = t.session_id
            WHERE t.hash = ?2 AND s.user_id = ?1
            """, [userID, digest])
    }

    private func revoke(_ db: some SQLConnection, sessionID: Int64, now: Int64) throws {
        try db.run("UPDATE sessions SET revoked_at = ?, successor_box = NULL WHERE id = ? AND revoked_at IS NULL", now, sessionID)
        try BearerTokenStore.revokeAll(ofSession: sessionID, now: now, in: db)
    }

    /// Why a session may not refresh, or `nil` when it may.
    private func check(_ db: some SQLConnection, _ session: SessionRow, now: Int64) throws -> SessionError? {
        if session.revoked { return .invalidGrant("The session was ended. Sign in again.") }
        if session.userDisabled { return .invalidGrant("The account is disabled.") }
        if isExpired(createdAt: session.createdAt, lastUsedAt: session.lastUsedAt, now: now) {
            try revoke(db, sessionID: session.id, now: now)
            return .invalidGrant("The session expired. Sign in again.")
        }
        return nil
    }

    /// Spends the session's current token `spent` and issues the next pair, keeping that answer
    /// sealed under `spent` for replays within the grace window.
    private func rotate(_ db: some SQLConnection, _ session: SessionRow, spent: String, spentDigest: [UInt8], now: Int64) throws -> IssuedTokens {
        let refresh = TokenKind.refresh.makeSecret()
        let access = try issueAccess(db, userID: session.userID, sessionID: session.id, now: now)
        let box = lifetimes.refreshGraceSeconds > 0
            ? SecretBox.seal(Array((refresh + access).utf8), key: SecretBox.key(fromSecret: spent, context: Self.successorKeyContext))
            : nil
        try db.run("INSERT INTO spent_refresh_tokens (hash, session_id, spent_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", spentDigest, session.id, now)
        try db.run("""
            UPDATE sessions SET refresh_hash = ?, refresh_issued_at = ?, previous_refresh_hash = ?, previous_rotated_at = ?,
                successor_box = ?, last_used_at = ?
            WHERE id = ?
            """, TokenKind.digest(refresh), now, spentDigest, now, box, now, session.id)
        return IssuedTokens(accessToken: access, accessExpiresIn: lifetimes.accessSeconds, refreshToken: refresh)
    }

    /// The tokens the last rotation answered, opened with the spent token `spent`; `nil` when
    /// there is no sealed answer (a rotation made before this was kept) or it does not open.
    private func replayedAnswer(_ db: some SQLConnection, _ session: SessionRow, spent: String, now: Int64) throws -> IssuedTokens? {
        guard let box = session.successorBox,
              let plain = SecretBox.open(box, key: SecretBox.key(fromSecret: spent, context: Self.successorKeyContext)),
              plain.count == 2 * TokenKind.secretLength else { return nil }
        let refresh = String(decoding: plain.prefix(TokenKind.secretLength), as: UTF8.self)
        let access = String(decoding: plain.suffix(TokenKind.secretLength), as: UTF8.self)
        guard TokenKind.of(refresh) == .refresh, TokenKind.of(access) == .access,
              ConstantTime.equal(TokenKind.digest(refresh), session.refreshHash) else { return nil }
        // The same access token, so its lifetime has run since the rotation: say what is left.
        let expiresAt = try BearerTokenStore.expiry(ofDigest: TokenKind.digest(access), in: db) ?? now
        return IssuedTokens(accessToken: access, accessExpiresIn: Int(max(0, expiresAt - now) / 1000), refreshToken: refresh)
    }

    /// Deletes the sealed answers of rotations whose grace window has ended: past it a replay
    /// revokes the session, so nothing may be kept that a spent token could open.
    func forgetEndedGrace(_ db: some SQLConnection, now: Int64) throws {
        try db.run("UPDATE sessions SET successor_box = NULL WHERE successor_box IS NOT NULL AND previous_rotated_at < ?",
                   now - Int64(lifetimes.refreshGraceSeconds) * 1000)
    }

    private func issueAccess(_ db: some SQLConnection, userID: Int64, sessionID: Int64, now: Int64) throws -> String {
        try BearerTokenStore.issueAccess(userID: userID, sessionID: sessionID, now: now,
                                         expiresAt: now + Int64(lifetimes.accessSeconds) * 1000, in: db)
    }
}
