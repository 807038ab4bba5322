/// A position in a user's changes feed: the opaque `cursor` answer and `since` parameter.
///
/// A plain number `N` is a delta cursor: every change up to revision `N` was seen. It is refused
/// with 410 `resync_required` once tombstones after it were purged, because the client would
/// never learn of those deletions.
///
/// A walk from the beginning (`since=0`) is different: it reads every live note and every kept
/// tombstone, and a client on such a walk treats notes missing from it as gone, so purged
/// tombstones cannot mislead it. While its pages still end below the purge horizon its cursor
/// is `full-N`, which continues the walk instead of failing; its last page answers a plain
/// cursor at the user's latest revision, which is never behind the horizon.
struct NoteChangesCursor: Sendable, Equatable {
    /// The last revision the client has seen.
    var rev: Int64
    /// Whether the client is walking the whole feed from the beginning.
    var fullWalk: Bool

    static let start = NoteChangesCursor(rev: 0, fullWalk: true)

    init(rev: Int64, fullWalk: Bool) {
        self.rev = rev
        self.fullWalk = fullWalk || rev == 0
    }

    /// Parses `N` or `full-N`; `nil` for anything else.
    init?(_ text: String) {
        let fullWalk = text.hasPrefix(Self.fullWalkPrefix)
        guard let rev = Int64(fullWalk ? text.dropFirst(Self.fullWalkPrefix.count) : Substring(text)), rev >= 0 else { return nil }
        self.init(rev: rev, fullWalk: fullWalk)
    }

    /// The wire form.
    var text: String { fullWalk && rev > 0 ? Self.fullWalkPrefix + String(rev) : String(rev) }

    private static let fullWalkPrefix = "full-"
}
