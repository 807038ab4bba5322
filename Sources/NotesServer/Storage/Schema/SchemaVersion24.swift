extension SchemaVersion {
    /// Version 24: spaces, notes shared between accounts with roles, and the author of each
    /// revision (docs/architecture.md §6.5).
    static let v24 = SchemaVersion(version: 24, name: "spaces shared between accounts, their members and roles; each revision's author",
                                   statements: spaces)

    /// A space's notes, revisions, trash and contents are held by a row of `users` of kind
    /// `space`, exactly as an account's own notes are held by the account's row: the rev
    /// sequence, the purge point, the content store and every note table stay keyed by
    /// `user_id`, and the space's id is that row's id. Such a row never signs in: its name is
    /// not a valid username and it has no password. Each account's personal space is its own
    /// row (`personal = 1`, owned by the account), made here for the accounts there are, so
    /// `/v1/notes…` keeps addressing what it always did.
    ///
    /// `space_members` says who may reach a space and how (`SpaceAccess` reads it at every
    /// request): `owner` (one per space, `spaces.owner_id`), `editor` or `viewer`. A deleted
    /// space keeps its rows with `deleted_at` set until its owner restores or purges it; its
    /// name is free again meanwhile. `revisions.author_id` is the account that wrote a
    /// revision in a shared space; NULL where the writer is the holder itself (an account in
    /// its personal space, and every revision written before this version).
    private static func spaces(_ sql: SQLDialect) -> String {
        """
        ALTER TABLE users ADD COLUMN kind TEXT NOT NULL DEFAULT 'account' CHECK (kind IN ('account', 'space'));

        CREATE TABLE spaces (
            id \(sql.int64) PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            owner_id \(sql.int64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            -- The name as compared for uniqueness per owner (UserStore.key's folding).
            name_key TEXT NOT NULL,
            personal INTEGER NOT NULL DEFAULT 0,
            created_at \(sql.int64) NOT NULL,
            deleted_at \(sql.int64)
        );
        CREATE UNIQUE INDEX spaces_owner_name ON spaces(owner_id, name_key) WHERE deleted_at IS NULL;
        CREATE INDEX spaces_owner ON spaces(owner_id);

        CREATE TABLE space_members (
            space_id \(sql.int64) NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
            user_id \(sql.int64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
            added_at \(sql.int64) NOT NULL,
            PRIMARY KEY (space_id, user_id)
        )\(sql.withoutRowID);
        CREATE INDEX space_members_user ON space_members(user_id);

        ALTER TABLE revisions ADD COLUMN author_id \(sql.int64);

        INSERT INTO spaces (id, owner_id, name, name_key, personal, created_at)
            SELECT id, id, 'personal', 'personal', 1, created_at FROM users;
        INSERT INTO space_members (space_id, user_id, role, added_at)
            SELECT id, id, 'owner', created_at FROM users;

        """
    }
}
