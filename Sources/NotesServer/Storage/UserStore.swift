import NotesCore

/// A stored account, password hash included (it never leaves the server).
struct UserRecord: Sendable {
    let id: Int64
    let username: String
    let passwordHash: String
    let disabled: Bool
    let createdAt: Int64

    var resource: UserResource {
        UserResource(id: id, username: username, createdAt: WireTime.string(fromMilliseconds: createdAt))
    }
}

/// Accounts: creation, lookup, password changes and disabling.
struct UserStore: Sendable {
    let database: ServerDatabase
    let clock: ServerClock
    /// Told once a change that can stop a token committed, so this server's kept token rows
    /// (`GET /v1/notes/{id}`) do not outlive it; `nil` for admin commands, which have none.
    var tokenChecks: TokenCheckCache? = nil

    /// The longest accepted username, in bytes.
    static let maxUsernameBytes = 64

    /// Checks that `name` is a usable username: 1–64 bytes (in NFC) of letters of any script
    /// (with their combining marks), digits, `.`, `_`, `-`. Callers store `normalized(name)`.
    static func validate(username name: String) throws(UserStoreError) {
        guard isWellFormedName(normalized(name)) else { throw .invalidUsername }
    }

    /// Whether `nfc` (a name in NFC) has a username's shape: 1–64 bytes of letters, digits, their
    /// marks (not first), `.`, `_` and `-`. Space names follow the same rule.
    static func isWellFormedName(_ nfc: String) -> Bool {
        guard let first = nfc.unicodeScalars.first, nfc.utf8.count <= maxUsernameBytes, !isMark(first) else { return false }
        return nfc.unicodeScalars.allSatisfy { isLetterOrDigit($0) || isMark($0) || "._-".unicodeScalars.contains($0) }
    }

    /// The stored spelling of a username: NFC, so `Zoë` typed either way is one string.
    static func normalized(_ name: String) -> String {
        NotePath.nfc(name)
    }

    /// The lookup key of a username: NFC plus Unicode case-folding (`Zoë` and `ZOË` are one
    /// account). For ASCII names it is the lower-cased name, as migration 4 filled it in.
    static func key(_ name: String) -> String {
        NotePath.collisionKey(of: normalized(name))
    }

    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber: true
        default: false
        }
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    func create(username: String, passwordHash: String) throws -> UserRecord {
        try Self.validate(username: username)
        let username = Self.normalized(username), key = Self.key(username)
        let now = clock.now()
        return try database.write { db in
            if try db.scalarInt("SELECT id FROM users WHERE username_key = ?", [key]) != nil { throw UserStoreError.exists(username) }
            let id = try db.scalarInt("INSERT INTO users (username, username_key, password_hash, created_at) VALUES (?, ?, ?, ?) RETURNING id",
                                      [username, key, passwordHash, now]) ?? 0
            try SpaceStore.addPersonalSpace(of: id, in: db, now: now)
            return UserRecord(id: id, username: username, passwordHash: passwordHash, disabled: false, createdAt: now)
        }
    }

    func find(username: String) throws -> UserRecord? {
        try database.read { db in
            try db.first("SELECT id, username, password_hash, disabled, created_at FROM users WHERE username_key = ?", [Self.key(username)], row: Self.record)
        }
    }

    func find(id: Int64) throws -> UserRecord? {
        try database.read { db in
            try db.first("SELECT id, username, password_hash, disabled, created_at FROM users WHERE id = ?", [id], row: Self.record)
        }
    }

    func all() throws -> [UserRecord] {
        try database.read { db in
            try db.query("SELECT id, username, password_hash, disabled, created_at FROM users WHERE kind = 'account' ORDER BY username", row: Self.record)
        }
    }

    /// Replaces the password and ends every session and token of the user: whoever knew the
    /// old password must not stay signed in.
    func setPassword(username: String, passwordHash: String) throws {
        defer { tokenChecks?.forgetAll() }
        try database.write { db in
            guard let id = try db.scalarInt("SELECT id FROM users WHERE username_key = ?", [Self.key(username)]) else { throw UserStoreError.notFound(username) }
            try db.run("UPDATE users SET password_hash = ? WHERE id = ?", passwordHash, id)
            try Self.revokeEverything(of: id, in: db, now: clock.now())
        }
    }

    /// Stores `newHash`, a hash of the same password at today's cost, in place of `oldHash`;
    /// sessions stay (the password did not change). A no-op when the hash changed meanwhile
    /// (a concurrent `passwd` wins). Returns whether it replaced the hash.
    @discardableResult
    func upgradePasswordHash(userID: Int64, from oldHash: String, to newHash: String) throws -> Bool {
        try database.write { db in
            try db.run("UPDATE users SET password_hash = ? WHERE id = ? AND password_hash = ?", newHash, userID, oldHash) == 1
        }
    }

    /// Gives the account another name (an account made by a provider sign-in takes its name from
    /// the provider; an admin may prefer another). Sessions, tokens and notes stay: they are keyed
    /// by the account's id, not its name. Only a change of letter case is allowed onto the
    /// account's own name.
    func rename(username: String, to newName: String) throws {
        try Self.validate(username: newName)
        let newName = Self.normalized(newName), newKey = Self.key(newName)
        defer { tokenChecks?.forgetAll() }
        try database.write { db in
            guard let id = try db.scalarInt("SELECT id FROM users WHERE username_key = ?", [Self.key(username)]) else {
                throw UserStoreError.notFound(username)
            }
            if let holder = try db.scalarInt("SELECT id FROM users WHERE username_key = ?", [newKey]), holder != id {
                throw UserStoreError.exists(newName)
            }
            try db.run("UPDATE users SET username = ?, username_key = ? WHERE id = ?", newName, newKey, id)
        }
    }

    /// Disables (or re-enables) sign-in; disabling also revokes every session and token.
    func setDisabled(username: String, disabled: Bool) throws {
        defer { tokenChecks?.forgetAll() }
        try database.write { db in
            guard let id = try db.scalarInt("SELECT id FROM users WHERE username_key = ?", [Self.key(username)]) else { throw UserStoreError.notFound(username) }
            try db.run("UPDATE users SET disabled = ? WHERE id = ?", disabled, id)
            if disabled { try Self.revokeEverything(of: id, in: db, now: clock.now()) }
        }
    }

    /// How many live notes the user has (for the confirmation before deleting them).
    func noteCount(userID: Int64) throws -> Int {
        try database.read { db in try NoteStore.liveNoteCount(of: userID, in: db) }
    }

    /// Removes the account and everything keyed by it, in one transaction: its notes and
    /// revisions, the shared spaces it owns with theirs, its sessions and tokens, each removed by the store that owns the table. The
    /// foreign keys would cascade too; naming each keeps the removal visible here.
    /// - Returns: how many live notes went.
    func delete(userID: Int64) throws -> Int {
        defer { tokenChecks?.forgetAll() }
        let owned = try database.read { db in try SpaceStore.sharedSpaces(ownedBy: userID, in: db) }
        for holder in [userID] + owned { try NoteStore.takeSearchQueue(of: holder, in: database) }
        return try database.write { db in
            let notes = try NoteStore.liveNoteCount(of: userID, in: db)
            for space in owned {
                try NoteStore.deleteAll(of: space, in: db)
                try db.run("DELETE FROM users WHERE id = ? AND kind = 'space'", space)
            }
            try NoteStore.deleteAll(of: userID, in: db)
            try PersonalTokenStore.deleteAll(of: userID, in: db)
            try SessionStore.deleteAll(of: userID, in: db)
            try db.run("DELETE FROM users WHERE id = ?", userID)
            return notes
        }
    }

    /// Ends every session, access token and personal token of `userID`: whoever held one must
    /// sign in again.
    private static func revokeEverything(of userID: Int64, in db: some SQLConnection, now: Int64) throws {
        try SessionStore.revokeAll(of: userID, in: db, now: now)
        try PersonalTokenStore.revokeAll(of: userID, in: db, now: now)
    }

    private static func record(_ row: any SQLRow) -> UserRecord {
        UserRecord(id: row.int64(0), username: row.string(1), passwordHash: row.string(2), disabled: row.bool(3), createdAt: row.int64(4))
    }
}

enum UserStoreError: Error, CustomStringConvertible {
    case invalidUsername
    case exists(String)
    case notFound(String)

    var description: String {
        switch self {
        case .invalidUsername: "a username is 1 to 64 characters: letters, digits, '.', '_' or '-'"
        case .exists(let name): "a user named '\(name)' already exists"
        case .notFound(let name): "there is no user named '\(name)'"
        }
    }
}
