/// A space as WebDAV serves it: one top-level collection under `/dav/`, whose entries belong to
/// `userID`, which the caller may write or only read.
///
/// Each account has its personal space, named `personal` (`/dav/personal/`): the entries every
/// other door (sync, the API, the web app) shows for the account. A space shared between
/// accounts is another `DAVSpace`, found by `DAVSpaces.named(_:for:)` under its own name.
struct DAVSpace: Sendable, Equatable {
    /// The personal space's fixed name, the first segment of its URL.
    static let personalName = "personal"

    /// The collection's name under `/dav/`.
    let name: String
    /// Whose entries the space holds (the rows' `user_id`).
    let userID: Int64
    /// Whether the caller's role lets them write here (the token's scope is checked apart).
    let writable: Bool
}

/// The spaces a caller can reach over WebDAV: what `/dav/` lists and what a name resolves to.
/// Everything else answers 404, so a caller learns nothing about spaces they cannot read.
enum DAVSpaces {
    /// Every space `principal` may read, in listing order.
    static func readable(by principal: Principal) -> [DAVSpace] {
        [DAVSpace(name: DAVSpace.personalName, userID: principal.userID, writable: true)]
    }

    /// The space called `name` that `principal` may read, or nil.
    static func named(_ name: String, for principal: Principal) -> DAVSpace? {
        readable(by: principal).first { $0.name == name }
    }
}
