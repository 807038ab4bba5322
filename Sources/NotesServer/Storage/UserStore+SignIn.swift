import NotesCore

/// Accounts created by signing in with an identity provider.
extension UserStore {
    /// `candidate` made into a valid username: characters a username may not hold are dropped,
    /// and it is cut to the longest length. `nil` when nothing usable is left.
    static func usableName(from candidate: String?) -> String? {
        guard let candidate else { return nil }
        var name = ""
        for character in normalized(candidate) {
            let next = name + String(character)
            guard next.utf8.count <= maxUsernameBytes - 4 else { break }
            if (try? validate(username: next)) != nil { name = next }
        }
        return name.isEmpty ? nil : name
    }

    /// Inserts a user named `baseName`, or `baseName-2`, `-3`, … when taken, inside `db`'s transaction.
    static func insertUnique(baseName: String, passwordHash: String, in db: some SQLConnection, now: Int64) throws -> UserRecord {
        for attempt in 1...1000 {
            let name = attempt == 1 ? baseName : "\(baseName)-\(attempt)"
            if try db.scalarInt("SELECT id FROM users WHERE username_key = ?", [key(name)]) != nil { continue }
            let id = try db.scalarInt("INSERT INTO users (username, username_key, password_hash, created_at) VALUES (?, ?, ?, ?) RETURNING id",
                                      [name, key(name), passwordHash, now]) ?? 0
            try SpaceStore.addPersonalSpace(of: id, in: db, now: now)
            return UserRecord(id: id, username: name, passwordHash: passwordHash, disabled: false, createdAt: now)
        }
        throw UserStoreError.exists(baseName)
    }

    /// The account `id`, read inside a transaction another store runs.
    static func find(id: Int64, in db: some SQLConnection) throws -> UserRecord? {
        try db.first("SELECT id, username, password_hash, disabled, created_at FROM users WHERE id = ?", [id]) {
            UserRecord(id: $0.int64(0), username: $0.string(1), passwordHash: $0.string(2), disabled: $0.bool(3), createdAt: $0.int64(4))
        }
    }

    /// Whether the account can sign in with a password (accounts made by a provider have none).
    static func hasPassword(_ user: UserRecord) -> Bool {
        !user.passwordHash.isEmpty
    }
}
