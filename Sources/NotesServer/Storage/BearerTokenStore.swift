import NotesCore

/// A stored bearer token as authentication needs it: the token, its session and its user.
struct BearerTokenRecord: Sendable {
    let hash: [UInt8]
    let id: String
    let scope: TokenScope
    let expiresAt: Int64?
    let revoked: Bool
    let sessionID: Int64?
    let sessionRevoked: Bool
    let userID: Int64
    let username: String
    let userDisabled: Bool
    /// When the account was made: with `userID`, which account this is (see `NoteCache.Account`).
    let userCreatedAt: Int64
    let tokenUsedAt: Int64?
    let sessionUsedAt: Int64?
    /// The session's device name (empty when none was given), `nil` for a personal token.
    let sessionDevice: String?
    /// The token's name (empty for access tokens).
    let name: String

    /// What a revision written with this token records as its device: the session's device
    /// name, or `token:NAME` for a personal token, so a script's writes can be told apart.
    var device: String? {
        if sessionID != nil { return sessionDevice.flatMap { $0.isEmpty ? nil : $0 } }
        return name.isEmpty ? nil : "token:\(name)"
    }

    /// The account the token belongs to, as the note cache keys it.
    var account: NoteCache.Account { NoteCache.Account(userID: userID, createdAt: userCreatedAt) }

    /// The same row after `recordUse` wrote `now` as its session's (or personal token's) last use.
    func used(at now: Int64) -> BearerTokenRecord {
        BearerTokenRecord(hash: hash, id: id, scope: scope, expiresAt: expiresAt, revoked: revoked, sessionID: sessionID,
                          sessionRevoked: sessionRevoked, userID: userID, username: username, userDisabled: userDisabled,
                          userCreatedAt: userCreatedAt, tokenUsedAt: sessionID == nil ? now : tokenUsedAt,
                          sessionUsedAt: sessionID == nil ? sessionUsedAt : now, sessionDevice: sessionDevice, name: name)
    }
}

/// The one owner of the `tokens` table: it answers "whose token is this?" and runs every
/// statement on the table (`BearerTokenStore+Rows.swift`), while `SessionStore` (access tokens)
/// and `PersonalTokenStore` (personal tokens) decide when a row is made, revoked or deleted. The
/// authenticator asks here and runs no SQL of its own.
struct BearerTokenStore: Sendable {
    let database: ServerDatabase

    /// How stale a recorded "last used" time may get before a request writes a new one. Writing
    /// on every request would turn each authenticated read into a write.
    static let lastUseResolutionMilliseconds: Int64 = 60_000

    /// The token stored under `digest`, with its session and user, or `nil` when none is.
    func find(digest: [UInt8]) throws -> BearerTokenRecord? {
        try database.readStatement { db in
            try db.first(Self.tokenByDigest, [digest]) { Self.token(in: $0) }
        }
    }

    /// The token stored under `digest` and, read by the same statement, its user's note `noteID`
    /// (`nil` when that user has none), or `nil` when no token is stored under `digest`.
    ///
    /// For `GET /v1/notes/{id}`, the hottest read: one round trip to PostgreSQL instead of two.
    /// The note is the token's user's, whatever the token's state: the caller checks the token
    /// exactly as after `find` and uses the note only once it passed.
    func find(digest: [UInt8], withNote noteID: NoteID) throws -> (token: BearerTokenRecord, note: NoteRecord?)? {
        try database.readStatement { db in
            try db.first(Self.tokenAndNoteByDigest, [noteID.value, digest]) { row in
                (Self.token(in: row), row.isNull(Self.tokenColumns) ? nil : try NoteRecord(row: row, withContent: true, first: Self.tokenColumns))
            }
        }
    }

    /// How many columns `token(in:)` reads; a joined note's come after them.
    private static let tokenColumns = 15

    /// The token's columns (`tokenColumns` of them), from the token joined to its user and session.
    private static let tokenSelect = """
        SELECT t.hash, t.id, t.scope, t.expires_at, t.revoked_at, t.session_id, s.revoked_at, u.id, u.username, u.disabled,
               t.last_used_at, s.last_used_at, s.device, t.name, u.created_at
        """
    private static let tokenJoins = "FROM tokens t JOIN users u ON u.id = t.user_id LEFT JOIN sessions s ON s.id = t.session_id"

    private static let tokenByDigest = "\(tokenSelect)\n\(tokenJoins)\nWHERE t.hash = ?"

    /// `tokenByDigest` with the columns of the token's user's note with id `?` after the token's.
    private static let tokenAndNoteByDigest = """
        \(tokenSelect), \(NoteRecord.columns(of: "n", withContent: true))
        \(tokenJoins)
        LEFT JOIN notes n ON n.user_id = t.user_id AND n.id = ?
        WHERE t.hash = ?
        """

    private static func token(in row: some SQLRow) -> BearerTokenRecord {
        BearerTokenRecord(hash: row.bytes(0), id: row.string(1), scope: TokenScope(rawValue: row.string(2)) ?? .read,
                          expiresAt: row.isNull(3) ? nil : row.int64(3), revoked: !row.isNull(4),
                          sessionID: row.isNull(5) ? nil : row.int64(5), sessionRevoked: !row.isNull(6),
                          userID: row.int64(7), username: row.string(8), userDisabled: row.bool(9), userCreatedAt: row.int64(14),
                          tokenUsedAt: row.isNull(10) ? nil : row.int64(10), sessionUsedAt: row.isNull(11) ? nil : row.int64(11),
                          sessionDevice: row.isNull(12) ? nil : row.string(12), name: row.string(13))
    }

    /// Records when a personal token, or the session of an access token, was last used, at most
    /// once a minute, so reads stay reads; a session's idle lifetime counts from this.
    /// - Returns: whether it wrote (`token.used(at: now)` is then the row as stored).
    @discardableResult
    func recordUse(of token: BearerTokenRecord, now: Int64) throws -> Bool {
        let stale = now - Self.lastUseResolutionMilliseconds
        if let sessionID = token.sessionID {
            guard (token.sessionUsedAt ?? 0) < stale else { return false }
            try database.write { db in
                try db.run("UPDATE sessions SET last_used_at = ? WHERE id = ? AND last_used_at < ?", now, sessionID, now)
            }
        } else {
            guard (token.tokenUsedAt ?? 0) < stale else { return false }
            try database.write { db in try db.run("UPDATE tokens SET last_used_at = ? WHERE id = ?", now, token.id) }
        }
        return true
    }
}
