import NotesCore

/// A personal access token as stored: everything but the secret, which only its digest stands for.
struct PersonalTokenRecord: Sendable {
    let id: String
    let userID: Int64
    let name: String
    let scope: TokenScope
    let createdAt: Int64
    let expiresAt: Int64?
    let lastUsedAt: Int64?

    /// The wire form; `secret` only in the answer that created the token.
    func resource(secret: String? = nil) -> PersonalTokenResource {
        PersonalTokenResource(id: id, name: name, scope: scope, createdAt: WireTime.string(fromMilliseconds: createdAt),
                              expiresAt: expiresAt.map(WireTime.string(fromMilliseconds:)),
                              lastUsedAt: lastUsedAt.map(WireTime.string(fromMilliseconds:)), token: secret)
    }
}

/// Why a personal token could not be created.
enum PersonalTokenError: Error, Sendable, Equatable {
    /// The user holds `limit` live tokens already.
    case tooMany(limit: Int)
    /// The creating personal token may only read, and a token may never do more than its creator.
    case scopeBeyondCreator
    /// The new token would outlive the personal token creating it, which has `remainingSeconds` left.
    case outlivesCreator(remainingSeconds: Int)
}

/// Personal access tokens for scripts: long-lived bearer tokens with a scope, made and revoked
/// by their owner. They live in the `tokens` table beside access tokens (kind `personal`, no
/// session), so one lookup authenticates both; `BearerTokenStore` runs the statements.
struct PersonalTokenStore: Sendable {
    let database: ServerDatabase
    let clock: ServerClock
    /// Told once a change that can stop a token committed, so this server's kept token rows
    /// (`GET /v1/notes/{id}`) do not outlive it; `nil` for admin commands, which have none.
    var tokenChecks: TokenCheckCache? = nil

    /// The most tokens one user may hold at once; a bound on what one account can store.
    static let maxActivePerUser = 100
    /// The longest lifetime a token may ask for: ten years.
    static let maxLifetimeSeconds = 10 * 365 * 86_400

    /// Makes a token for `userID`. When `creatorTokenID` names a personal token (the caller
    /// authenticated with one), the new token may neither do more nor live longer than it: a
    /// short-lived token must not mint a permanent one. A session's caller is the account's owner
    /// signed in with the password, and may make any token.
    /// - Returns: the stored record and the secret, which is never stored and cannot be shown again.
    /// - Throws: `PersonalTokenError` past `maxActivePerUser` or beyond the creating token.
    func create(userID: Int64, name: String, scope: TokenScope, expiresInSeconds: Int?,
                creatorTokenID: String? = nil) throws -> (PersonalTokenRecord, String) {
        let now = clock.now()
        let secret = TokenKind.personal.makeSecret()
        let record = PersonalTokenRecord(id: SecureRandom.hexIdentifier(), userID: userID, name: name, scope: scope, createdAt: now,
                                         expiresAt: expiresInSeconds.map { now + Int64($0) * 1000 }, lastUsedAt: nil)
        try database.write { db in
            let active = try BearerTokenStore.livePersonalCount(of: userID, now: now, in: db)
            guard active < Self.maxActivePerUser else { throw PersonalTokenError.tooMany(limit: Self.maxActivePerUser) }
            if let creatorTokenID {
                // Gone since it authenticated this request (revoked and purged): it allows nothing.
                let creator = try BearerTokenStore.personalGrant(id: creatorTokenID, of: userID, in: db) ?? (scope: .read, expiresAt: now)
                if scope == .write && creator.scope != .write { throw PersonalTokenError.scopeBeyondCreator }
                if let creatorExpiry = creator.expiresAt, (record.expiresAt ?? .max) > creatorExpiry {
                    throw PersonalTokenError.outlivesCreator(remainingSeconds: Int(max(0, creatorExpiry - now) / 1000))
                }
            }
            try BearerTokenStore.insert(record, secret: secret, in: db)
        }
        return (record, secret)
    }

    /// `userID`'s tokens that still work, newest first.
    func list(userID: Int64) throws -> [PersonalTokenRecord] {
        try database.read { db in try BearerTokenStore.livePersonalTokens(of: userID, now: clock.now(), in: db) }
    }

    /// Revokes `userID`'s token `id` at once.
    /// - Returns: `false` when the user has no such live token (someone else's counts as none).
    func revoke(userID: Int64, id: String) throws -> Bool {
        defer { tokenChecks?.forgetAll() }
        return try database.write { db in try BearerTokenStore.revokePersonal(id: id, of: userID, now: clock.now(), in: db) }
    }

    /// Revokes every live personal token of `userID`, inside the caller's transaction (a
    /// password change or a disabled account ends them with it).
    static func revokeAll(of userID: Int64, in db: some SQLConnection, now: Int64) throws {
        try BearerTokenStore.revokeAll(.personal, of: userID, now: now, in: db)
    }

    /// Deletes every personal token of `userID`, inside the caller's transaction (the account
    /// is being deleted).
    static func deleteAll(of userID: Int64, in db: some SQLConnection) throws {
        try BearerTokenStore.deleteAll(.personal, of: userID, in: db)
    }
}
