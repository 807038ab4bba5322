import NotesCore

/// Spaces and their members: the tables `spaces` and `space_members`, and the `users` rows of
/// kind `space` that hold a shared space's notes (docs/architecture.md §6.5).
///
/// Every change checks the caller's grant through `SpaceAccess` inside its own transaction, so
/// a decision and the write it allows see one state. A change that can take a member's access
/// away (a removal, a lesser role, a deletion, a transfer) wakes the space's held long polls once
/// it committed, and each of them asks `SpaceAccess` again.
struct SpaceStore: Sendable {
    let database: ServerDatabase
    let clock: ServerClock
    let notifier: any ChangeNotifier

    /// The name of every account's own space.
    static let personalName = "personal"

    // MARK: Spaces

    /// Every space `account` is a member of, personal first, then by name; and the spaces it owns
    /// that are in the trash.
    func list(account: Int64) throws -> [SpaceResource] {
        try database.read { db in
            try db.query(Self.resourceSelect + """
                WHERE m.user_id = ? AND (s.deleted_at IS NULL OR s.owner_id = m.user_id)
                ORDER BY s.personal DESC, s.name_key, o.username_key
                """, [account], row: Self.resource)
        }
    }

    /// The space `spaceID` as `account` sees it.
    /// - Throws: `SpaceError.notFound` unless `account` is a member of the live space.
    func space(_ spaceID: Int64, account: Int64) throws -> SpaceResource {
        try database.read { db in
            _ = try SpaceAccess.require(.viewer, account: account, space: spaceID, in: db)
            return try Self.resource(of: spaceID, for: account, in: db)
        }
    }

    /// Makes a space named `name`, owned by `account`, with no other member.
    /// - Throws: `SpaceError.invalidName`, `.nameTaken`.
    func create(account: Int64, name: String) throws -> SpaceResource {
        let name = try Self.validated(name)
        let now = clock.now()
        return try database.write { db in
            try Self.requireFree(name, owner: account, in: db)
            let holder = try db.scalarInt("""
                INSERT INTO users (username, username_key, password_hash, disabled, created_at, kind)
                VALUES (?, ?, '', 1, ?, 'space') RETURNING id
                """, [Self.holderName, Self.holderName, now]) ?? 0
            // The holder's name only has to be unique and unusable as a username: it holds ':'.
            try db.run("UPDATE users SET username = ?, username_key = ? WHERE id = ?", "space:\(holder)", "space:\(holder)", holder)
            try db.run("INSERT INTO spaces (id, owner_id, name, name_key, personal, created_at) VALUES (?, ?, ?, ?, 0, ?)",
                       holder, account, name, UserStore.key(name), now)
            try db.run("INSERT INTO space_members (space_id, user_id, role, added_at) VALUES (?, ?, 'owner', ?)", holder, account, now)
            return try Self.resource(of: holder, for: account, in: db)
        }
    }

    /// Renames the space; only its owner may.
    func rename(account: Int64, space spaceID: Int64, to name: String) throws -> SpaceResource {
        let name = try Self.validated(name)
        return try database.write { db in
            let grant = try SpaceAccess.require(.owner, account: account, space: spaceID, in: db)
            guard !grant.personal else { throw SpaceError.personal }
            try Self.requireFree(name, owner: account, except: spaceID, in: db)
            try db.run("UPDATE spaces SET name = ?, name_key = ? WHERE id = ?", name, UserStore.key(name), spaceID)
            return try Self.resource(of: spaceID, for: account, in: db)
        }
    }

    /// Moves the space to the trash: every member, the owner included, loses access until the
    /// owner restores it. Its notes stay as they are.
    func delete(account: Int64, space spaceID: Int64) throws {
        try database.write { db in
            let grant = try SpaceAccess.require(.owner, account: account, space: spaceID, in: db)
            guard !grant.personal else { throw SpaceError.personal }
            try db.run("UPDATE spaces SET deleted_at = ? WHERE id = ?", clock.now(), spaceID)
        }
        notifier.changed(user: spaceID)
    }

    /// Takes the owner's space out of the trash, with the members it had.
    /// - Throws: `SpaceError.notFound` unless `account` owns the space; `.notDeleted` for a live
    ///   one; `.nameTaken` when the owner made another space of that name meanwhile.
    func restore(account: Int64, space spaceID: Int64) throws -> SpaceResource {
        try database.write { db in
            guard let deleted = try db.first("SELECT deleted_at IS NOT NULL, name FROM spaces WHERE id = ? AND owner_id = ?",
                                             [spaceID, account], row: { ($0.bool(0), $0.string(1)) })
            else { throw SpaceError.notFound }
            guard deleted.0 else { throw SpaceError.notDeleted }
            try Self.requireFree(deleted.1, owner: account, in: db)
            try db.run("UPDATE spaces SET deleted_at = NULL WHERE id = ?", spaceID)
            return try Self.resource(of: spaceID, for: account, in: db)
        }
    }

    /// Makes `username` the owner; the owner stays a member as an editor.
    /// - Throws: `.notMember` unless `username` is a member; `.nameTaken` when the new owner
    ///   has a space of that name.
    func transfer(account: Int64, space spaceID: Int64, to username: String) throws -> SpaceResource {
        try database.write { db in
            let grant = try SpaceAccess.require(.owner, account: account, space: spaceID, in: db)
            guard !grant.personal else { throw SpaceError.personal }
            let target = try Self.member(username, of: spaceID, in: db)
            guard target.id != account else { return try Self.resource(of: spaceID, for: account, in: db) }
            let name = try db.scalarString("SELECT name FROM spaces WHERE id = ?", [spaceID]) ?? ""
            try Self.requireFree(name, owner: target.id, in: db)
            try db.run("UPDATE spaces SET owner_id = ? WHERE id = ?", target.id, spaceID)
            try db.run("UPDATE space_members SET role = 'owner' WHERE space_id = ? AND user_id = ?", spaceID, target.id)
            try db.run("UPDATE space_members SET role = 'editor' WHERE space_id = ? AND user_id = ?", spaceID, account)
            return try Self.resource(of: spaceID, for: account, in: db)
        }
    }

    // MARK: Members

    /// The space's members, owner first; any member may read them.
    func members(account: Int64, space spaceID: Int64) throws -> [SpaceMemberResource] {
        try database.read { db in
            _ = try SpaceAccess.require(.viewer, account: account, space: spaceID, in: db)
            return try db.query("""
                SELECT u.username, m.role, m.added_at FROM space_members m JOIN users u ON u.id = m.user_id
                WHERE m.space_id = ? ORDER BY m.role = 'owner' DESC, u.username_key
                """, [spaceID]) { row in
                SpaceMemberResource(username: row.string(0), role: SpaceRole(rawValue: row.string(1)) ?? .viewer,
                                    addedAt: WireTime.string(fromMilliseconds: row.int64(2)))
            }
        }
    }

    /// Adds the account `username` as `role` (`editor` or `viewer`); only the owner may.
    func add(account: Int64, space spaceID: Int64, username: String, role: SpaceRole) throws -> SpaceMemberResource {
        guard role != .owner else { throw SpaceError.ownerMustTransfer }
        let now = clock.now()
        return try database.write { db in
            let grant = try SpaceAccess.require(.owner, account: account, space: spaceID, in: db)
            guard !grant.personal else { throw SpaceError.personal }
            guard let user = try db.first("SELECT id, username FROM users WHERE username_key = ? AND kind = 'account'",
                                          [UserStore.key(username)], row: { ($0.int64(0), $0.string(1)) })
            else { throw SpaceError.noSuchUser(username) }
            if try db.scalarInt("SELECT 1 FROM space_members WHERE space_id = ? AND user_id = ?", [spaceID, user.0]) != nil {
                throw SpaceError.alreadyMember(user.1)
            }
            try db.run("INSERT INTO space_members (space_id, user_id, role, added_at) VALUES (?, ?, ?, ?)", spaceID, user.0, role.rawValue, now)
            return SpaceMemberResource(username: user.1, role: role, addedAt: WireTime.string(fromMilliseconds: now))
        }
    }

    /// Gives the member `username` the role `role` (`editor` or `viewer`); only the owner may,
    /// and the owner's own role changes only by a transfer.
    func setRole(account: Int64, space spaceID: Int64, username: String, role: SpaceRole) throws -> SpaceMemberResource {
        guard role != .owner else { throw SpaceError.ownerMustTransfer }
        let member = try database.write { db in
            _ = try SpaceAccess.require(.owner, account: account, space: spaceID, in: db)
            let member = try Self.member(username, of: spaceID, in: db)
            guard member.role != .owner else { throw SpaceError.ownerMustTransfer }
            try db.run("UPDATE space_members SET role = ? WHERE space_id = ? AND user_id = ?", role.rawValue, spaceID, member.id)
            return SpaceMemberResource(username: member.username, role: role, addedAt: WireTime.string(fromMilliseconds: member.addedAt))
        }
        notifier.changed(user: spaceID)
        return member
    }

    /// Removes the member `username`; only the owner may, and not themselves (`leave` after a
    /// transfer).
    func remove(account: Int64, space spaceID: Int64, username: String) throws {
        try database.write { db in
            _ = try SpaceAccess.require(.owner, account: account, space: spaceID, in: db)
            let member = try Self.member(username, of: spaceID, in: db)
            guard member.role != .owner else { throw SpaceError.ownerMustTransfer }
            try db.run("DELETE FROM space_members WHERE space_id = ? AND user_id = ?", spaceID, member.id)
        }
        notifier.changed(user: spaceID)
    }

    /// Ends `account`'s membership; the owner must transfer the space first.
    func leave(account: Int64, space spaceID: Int64) throws {
        try database.write { db in
            let grant = try SpaceAccess.require(.viewer, account: account, space: spaceID, in: db)
            guard !grant.personal else { throw SpaceError.personal }
            guard grant.role != .owner else { throw SpaceError.ownerMustTransfer }
            try db.run("DELETE FROM space_members WHERE space_id = ? AND user_id = ?", spaceID, account)
        }
        notifier.changed(user: spaceID)
    }

    // MARK: Inside other stores' transactions

    /// Makes the personal space of the new account `account`: the account's own row holds its
    /// notes, so the space's id is the account's.
    static func addPersonalSpace(of account: Int64, in db: some SQLConnection, now: Int64) throws {
        try db.run("INSERT INTO spaces (id, owner_id, name, name_key, personal, created_at) VALUES (?, ?, ?, ?, 1, ?)",
                   account, account, personalName, personalName, now)
        try db.run("INSERT INTO space_members (space_id, user_id, role, added_at) VALUES (?, ?, 'owner', ?)", account, account, now)
    }

    /// The shared spaces `account` owns, in the trash or not (their holders go with the account).
    static func sharedSpaces(ownedBy account: Int64, in db: some SQLConnection) throws -> [Int64] {
        try db.query("SELECT id FROM spaces WHERE owner_id = ? AND personal = 0 ORDER BY id", [account]) { $0.int64(0) }
    }

    // MARK: Helpers

    /// A placeholder username for a new holder row, replaced by `space:<id>` in the same transaction.
    private static var holderName: String { "space:new:" + SecureRandom.token(prefix: "") }

    private static let resourceSelect = """
        SELECT s.id, s.name, o.username, m.role, s.personal, s.created_at, s.deleted_at
        FROM spaces s JOIN space_members m ON m.space_id = s.id JOIN users o ON o.id = s.owner_id

        """

    private static func resource(_ row: any SQLRow) -> SpaceResource {
        SpaceResource(id: row.int64(0), name: row.string(1), owner: row.string(2), role: SpaceRole(rawValue: row.string(3)) ?? .viewer,
                      personal: row.bool(4), createdAt: WireTime.string(fromMilliseconds: row.int64(5)),
                      deletedAt: row.isNull(6) ? nil : WireTime.string(fromMilliseconds: row.int64(6)))
    }

    private static func resource(of spaceID: Int64, for account: Int64, in db: some SQLConnection) throws -> SpaceResource {
        guard let space = try db.first(resourceSelect + "WHERE s.id = ? AND m.user_id = ?", [spaceID, account], row: resource)
        else { throw SpaceError.notFound }
        return space
    }

    private static func validated(_ name: String) throws(SpaceError) -> String {
        let name = UserStore.normalized(name)
        guard UserStore.isWellFormedName(name) else { throw .invalidName }
        return name
    }

    private static func requireFree(_ name: String, owner: Int64, except spaceID: Int64 = 0, in db: some SQLConnection) throws {
        if try db.scalarInt("SELECT id FROM spaces WHERE owner_id = ? AND name_key = ? AND deleted_at IS NULL AND id <> ?",
                            [owner, UserStore.key(name), spaceID]) != nil {
            throw SpaceError.nameTaken(name)
        }
    }

    private struct Member {
        let id: Int64
        let username: String
        let role: SpaceRole
        let addedAt: Int64
    }

    private static func member(_ username: String, of spaceID: Int64, in db: some SQLConnection) throws -> Member {
        guard let member = try db.first("""
            SELECT u.id, u.username, m.role, m.added_at FROM space_members m JOIN users u ON u.id = m.user_id
            WHERE m.space_id = ? AND u.username_key = ?
            """, [spaceID, UserStore.key(username)], row: {
                Member(id: $0.int64(0), username: $0.string(1), role: SpaceRole(rawValue: $0.string(2)) ?? .viewer, addedAt: $0.int64(3))
            })
        else { throw SpaceError.notMember(username) }
        return member
    }
}
