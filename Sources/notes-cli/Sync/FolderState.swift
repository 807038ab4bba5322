import NotesCore
import Synchronization

/// What a sync knows about its folder while it runs: every tracked note (its index row, its
/// file's state and where the file is now) and every untracked note file, with lookups by id
/// and by path key.
///
/// A value that keeps its own invariants, so the engine can only change it through them:
/// - every tracked note with a file is found by its id and by its file's path key;
/// - a path key names at most one tracked note, and only one whose file is there now (no
///   stale key survives a move, an eviction or an untrack);
/// - an untracked file never shadows a tracked note: a lookup by path answers the tracked
///   note first, and the free-name check counts both.
///
/// Path keys are `NotePath`'s: NFC, plus its collision key (case-folding) on a folder whose
/// filesystem folds case, so two names the disk takes for one file are one key here too.
struct FolderState: Sendable {
    /// Whether the folder's filesystem folds case.
    let caseInsensitive: Bool
    /// Every tracked note by id.
    private(set) var tracked: [NoteID: TrackedNote] = [:]
    /// The tracked note whose file is at each path key, made when first needed: a sync that
    /// changes nothing never looks a path up, and making it for 10,000 notes (a hash of each
    /// path) was a sixth of what such a sync does after the walk.
    private var keyIndex = KeyIndex()
    /// The untracked note files by path key.
    private var untrackedByKey: [String: UntrackedFile] = [:]

    init(caseInsensitive: Bool) {
        self.caseInsensitive = caseInsensitive
    }

    /// The state a scan found. Where two tracked notes claim one key (names that differ only
    /// in Unicode normalisation on a disk that keeps both), the one with the smaller id keeps it,
    /// so every run decides alike; where two untracked files do, the first listed is kept.
    init(snapshot: LocalSnapshot, caseInsensitive: Bool) {
        self.init(caseInsensitive: caseInsensitive)
        tracked = snapshot.tracked
        keyIndex = KeyIndex()  // made from `tracked` when first asked
        for file in snapshot.untracked where untrackedByKey[key(file.path)] == nil {
            untrackedByKey[key(file.path)] = file
        }
    }

    /// Each tracked note's file by path key. Where two tracked notes claim one key (names
    /// that differ only in Unicode normalisation on a disk that keeps both), the one with the
    /// smaller id keeps it, so every run decides alike.
    private static func keys(of tracked: [NoteID: TrackedNote], caseInsensitive: Bool) -> [String: NoteID] {
        var byKey: [String: NoteID] = [:]
        byKey.reserveCapacity(tracked.count)
        for (id, note) in tracked {
            guard let disk = note.diskPath else { continue }
            let key = key(disk, caseInsensitive: caseInsensitive)
            if let holder = byKey[key], holder < id { continue }
            byKey[key] = id
        }
        return byKey
    }

    /// The path-key table, made now if it was not yet.
    private var trackedByKey: [String: NoteID] {
        keyIndex.table.withLock { table in
            if let table { return table }
            let made = Self.keys(of: tracked, caseInsensitive: caseInsensitive)
            table = made
            return made
        }
    }

    /// Changes the path-key table (made first if it was not yet), copying it first if another
    /// copy of this state shares it.
    private mutating func changeKeys(_ change: (inout [String: NoteID]) -> Void) {
        var table = trackedByKey
        if !isKnownUniquelyReferenced(&keyIndex) { keyIndex = KeyIndex() }
        keyIndex.table.withLock { stored in
            stored = nil  // the only other reference to `table`'s storage: `change` then mutates in place
            change(&table)
            stored = table
        }
    }

    /// The key under which two names are one file in this folder.
    func key(_ path: String) -> String {
        Self.key(path, caseInsensitive: caseInsensitive)
    }

    static func key(_ path: String, caseInsensitive: Bool) -> String {
        caseInsensitive ? NotePath.collisionKey(of: path) : NotePath.nfc(path)
    }

    // MARK: Lookups

    subscript(id: NoteID) -> TrackedNote? { tracked[id] }

    /// The tracked note whose file is at `path` (under the folder's case rules).
    func trackedID(at path: String) -> NoteID? { trackedByKey[key(path)] }

    /// The untracked file at `path`, unless a tracked note's file is there (it comes first).
    func untracked(at path: String) -> UntrackedFile? {
        let key = key(path)
        return trackedByKey[key] == nil ? untrackedByKey[key] : nil
    }

    /// The untracked file recorded at `path`'s key, even behind a tracked note (the planner
    /// decides what to do with both).
    func untrackedRecord(at path: String) -> UntrackedFile? { untrackedByKey[key(path)] }

    /// Whether neither a tracked note nor an untracked file holds `path`'s key.
    func isFree(_ path: String) -> Bool {
        let key = key(path)
        return trackedByKey[key] == nil && untrackedByKey[key] == nil
    }

    var hasUntracked: Bool { !untrackedByKey.isEmpty }

    /// The untracked files in path order.
    var untrackedFiles: [UntrackedFile] { untrackedByKey.values.sorted { $0.path < $1.path } }

    /// Tracked notes that exist on the server (a create not yet confirmed does not count).
    var confirmedCount: Int { tracked.values.reduce(0) { $0 + ($1.row.base.rev > 0 ? 1 : 0) } }

    // MARK: Changes

    /// Records `note` (new, or changed in any way): its file's old key is released if it held
    /// it, and its file's key, if any, now names it.
    mutating func track(_ note: TrackedNote) {
        let id = note.row.base.id
        let oldKey = tracked[id]?.diskPath.map(key)
        let newKey = note.diskPath.map(key)
        changeKeys { byKey in
            if let oldKey, byKey[oldKey] == id { byKey[oldKey] = nil }
            if let newKey { byKey[newKey] = id }
        }
        tracked[id] = note
    }

    /// Makes room for `count` more tracked notes at once, in the table by id and the one by
    /// path key, so tracking them does not regrow (rehash) both tables again and again: a first
    /// upload tracks every file of the folder in one go (`PushPhase.reserveIDs`), and the
    /// regrowing was a tenth of that at 100,000 notes (perf).
    mutating func reserveCapacity(forMore count: Int) {
        tracked.reserveCapacity(tracked.count + count)
        changeKeys { byKey in byKey.reserveCapacity(byKey.count + count) }
    }

    /// Forgets a tracked note entirely; returns what was known of it.
    @discardableResult
    mutating func untrack(_ id: NoteID) -> TrackedNote? {
        guard let note = tracked[id] else { return nil }
        if let disk = note.diskPath {
            let key = key(disk)
            changeKeys { byKey in
                if byKey[key] == id { byKey[key] = nil }
            }
        }
        tracked[id] = nil
        return note
    }

    mutating func addUntracked(_ file: UntrackedFile) {
        untrackedByKey[key(file.path)] = file
    }

    mutating func forgetUntracked(_ file: UntrackedFile) {
        untrackedByKey[key(file.path)] = nil
    }

    /// Hands over every untracked file (in path order) and forgets them: they become notes.
    mutating func takeUntracked() -> [UntrackedFile] {
        let files = untrackedFiles
        untrackedByKey = [:]
        return files
    }

    // MARK: Checking

    /// The invariants that do not hold, in words; empty when the state is sound. For tests.
    var violations: [String] {
        var found: [String] = []
        for (id, note) in tracked {
            if note.row.base.id != id { found.append("\(id.value) is stored under another id") }
            if let disk = note.diskPath, trackedByKey[key(disk)] != id { found.append("\(disk) does not find \(id.value)") }
        }
        for (key, id) in trackedByKey {
            guard let disk = tracked[id]?.diskPath else {
                found.append("key \(key) names \(id.value), which has no file")
                continue
            }
            if self.key(disk) != key { found.append("key \(key) names \(id.value), whose file is at \(disk)") }
        }
        for (key, file) in untrackedByKey where self.key(file.path) != key {
            found.append("untracked \(file.path) is stored under key \(key)")
        }
        return found
    }
}

/// The box of `FolderState`'s path-key table: shared by copies of a state until one changes it,
/// and filled in when first read (behind a lock, so a state stays `Sendable`).
private final class KeyIndex: Sendable {
    let table = Mutex<[String: NoteID]?>(nil)
}
