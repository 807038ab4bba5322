import NotesCore

/// What an account may do in one space: the answer of `SpaceAccess`.
struct SpaceGrant: Sendable, Equatable {
    /// The space's id, which is also the `user_id` its notes are held under.
    let spaceID: Int64
    let role: SpaceRole
    let personal: Bool
}

/// The one place that decides whether an account may reach a space, and how: every request on a
/// space's notes, attachments, uploads, feed, search, history and publications (API and web
/// app), and every change to the space and its members, asks here first
/// (docs/architecture.md §6.5).
///
/// It reads `space_members` at every call, never from a cache, so a removal or a deleted space
/// takes effect at the next request on any server. A space the account is not a member of, a
/// deleted one and one that does not exist are the same answer, `nil`, which callers turn into
/// 404: nothing tells a non-member whether the space exists.
struct SpaceAccess: Sendable {
    let database: ServerDatabase

    /// The account's grant on `spaceID`, or `nil` when it has none (not a member, no such space,
    /// or the space is in the trash).
    func grant(account: Int64, space spaceID: Int64) throws -> SpaceGrant? {
        try database.readStatement { db in try Self.grant(account: account, space: spaceID, in: db) }
    }

    /// `grant(account:space:)` inside a transaction another store runs.
    static func grant(account: Int64, space spaceID: Int64, in db: some SQLConnection) throws -> SpaceGrant? {
        try db.first("""
            SELECT m.role, s.personal FROM space_members m JOIN spaces s ON s.id = m.space_id
            WHERE m.space_id = ? AND m.user_id = ? AND s.deleted_at IS NULL
            """, [spaceID, account]) { row in
            SpaceRole(rawValue: row.string(0)).map { SpaceGrant(spaceID: spaceID, role: $0, personal: row.bool(1)) }
        } ?? nil
    }

    /// The grant of `account` on `spaceID`, refused unless its role is at least `needed`.
    /// - Throws: `SpaceError.notFound` without a grant; `.readOnly` for a viewer asked to write;
    ///   `.ownerOnly` for anyone but the owner asked to manage.
    static func require(_ needed: SpaceRole, account: Int64, space spaceID: Int64, in db: some SQLConnection) throws -> SpaceGrant {
        guard let grant = try grant(account: account, space: spaceID, in: db) else { throw SpaceError.notFound }
        try grant.admit(needed)
        return grant
    }

    /// The spaces `account` may read, personal space first.
    static func readableSpaces(of account: Int64, in db: some SQLConnection) throws -> [Int64] {
        try db.query("""
            SELECT m.space_id FROM space_members m JOIN spaces s ON s.id = m.space_id
            WHERE m.user_id = ? AND s.deleted_at IS NULL ORDER BY s.personal DESC, m.space_id
            """, [account]) { $0.int64(0) }
    }
}

extension SpaceGrant {
    /// Refuses a role below `needed` (owner > editor > viewer).
    /// - Throws: `SpaceError.readOnly` when writing was asked of a viewer, `.ownerOnly` when
    ///   managing was asked of anyone but the owner.
    func admit(_ needed: SpaceRole) throws(SpaceError) {
        switch (needed, role) {
        case (.viewer, _), (.editor, .owner), (.editor, .editor), (.owner, .owner): return
        case (.editor, .viewer): throw .readOnly
        case (.owner, _): throw .ownerOnly
        }
    }
}
