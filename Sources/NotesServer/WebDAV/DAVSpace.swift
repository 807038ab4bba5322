import NotesCore

/// A space as WebDAV serves it: one top-level collection under `/dav/`, whose entries belong to
/// `userID`, which the caller may write or only read.
///
/// Each account has its personal space, named `personal` (`/dav/personal/`): the entries every
/// other door (sync, the API, the web app) shows for the account. A shared space is listed under
/// its own name, or as `OWNER~NAME` when another space the caller can read has the same name
/// (`DAVSpaces`).
struct DAVSpace: Sendable, Equatable {
    /// The personal space's fixed name, the first segment of its URL.
    static let personalName = "personal"
    /// What separates the owner from the name in a qualified segment (`alice~Team`): the CLI's
    /// `OWNER/NAME`, with `~`, which no username or space name holds and URLs carry unencoded.
    static let ownerSeparator: Character = "~"
    /// The key its WebDAV folders, dead properties and locks are kept under, beside `userID`.
    /// The same for every space: a holder row holds exactly one space, while the URL name differs
    /// between readers and changes with a rename.
    static let storedKey = personalName

    /// The collection's name under `/dav/`.
    let name: String
    /// Whose entries the space holds (the rows' `user_id`).
    let userID: Int64
    /// Whether the caller's role lets them write here (the token's scope is checked apart).
    let writable: Bool
}

/// The spaces a caller can reach over WebDAV: what `/dav/` lists and what a name resolves to.
/// Everything else answers 404, so a caller learns nothing about spaces they cannot read.
///
/// The names come from `SpaceStore`'s list of the caller's spaces; the role, at every request,
/// from `SpaceAccess`, the one place that decides it (docs/architecture.md §6.5): a removed
/// member, or a space moved to the trash, answers 404 from the next request on.
struct DAVSpaces: Sendable {
    let store: SpaceStore
    let access: SpaceAccess

    /// Every space `principal` may read, in listing order: personal first, then by name.
    func readable(by principal: Principal) throws -> [DAVSpace] {
        try listing(for: principal).map(\.space)
    }

    /// The space called `name` that `principal` may read, or nil: the name `/dav/` lists, or
    /// `OWNER~NAME` for a shared space at any time.
    func named(_ name: String, for principal: Principal) throws -> DAVSpace? {
        let name = NotePath.nfc(name)
        if name == DAVSpace.personalName { return try granted(principal.userID, name: name, to: principal) }
        guard let found = try listing(for: principal).first(where: { $0.space.name == name || $0.qualified == name }) else { return nil }
        return try granted(found.space.userID, name: name, to: principal)
    }

    /// The live spaces of `principal`, each under the name `/dav/` lists and its `OWNER~NAME`
    /// (nil for the personal space). A shared space whose name another of them has, `personal`
    /// included (compared as usernames are), is listed qualified.
    private func listing(for principal: Principal) throws -> [(space: DAVSpace, qualified: String?)] {
        let live = try store.list(account: principal.userID).filter { $0.deletedAt == nil }
        let segment = { (space: SpaceResource) in space.personal ? DAVSpace.personalName : space.name }
        let counts = Dictionary(grouping: live.map(segment), by: UserStore.key).mapValues(\.count)
        return live.map { space in
            let qualified = space.personal ? nil : space.owner + String(DAVSpace.ownerSeparator) + space.name
            let name = counts[UserStore.key(segment(space))] == 1 ? segment(space) : qualified ?? segment(space)
            return (DAVSpace(name: name, userID: space.id, writable: space.role.writes), qualified)
        }
    }

    /// The space `spaceID` under `name` as `SpaceAccess` grants it to `principal` now, or nil.
    private func granted(_ spaceID: Int64, name: String, to principal: Principal) throws -> DAVSpace? {
        guard let grant = try access.grant(account: principal.userID, space: spaceID) else { return nil }
        return DAVSpace(name: name, userID: grant.spaceID, writable: grant.role.writes)
    }
}
