import Foundation
import NotesCore

/// A conflict copy in a bound folder, with the note it belongs to and why it was made.
struct ConflictCopy: Codable, Sendable, Equatable {
    /// The copy's path in the folder.
    var copy: String
    /// The path of the note it belongs to.
    var path: String
    /// Why it was made, when it was made here; `nil` for a copy made on another device (the
    /// reason was recorded there) or before reasons were recorded.
    var reason: ConflictReason?
    /// The device that made it, as its name says.
    var device: String
    /// Whether the note it belongs to is in the folder.
    var noteExists: Bool
    /// Set when sync cannot store the note's own name (`path` holds a backslash, a control
    /// character, a direction override): settling the copy into it would bring the name back
    /// and the next sync would leave it out, so the copy is offered this free name that syncs
    /// instead (`notes resolve COPY --rename-to NAME`); `--keep mine` and `--keep both` refuse.
    var renameTo: String?

    /// Why sync cannot store the note's name; `nil` when it can.
    var unsyncableNote: NotePathError? { EntryName.newEntryProblem(path) }

    /// "overlapping edit", or what is known when the reason is not.
    var why: String {
        if let reason { return reason.rawValue }
        return "made on \(device); its reason was recorded there"
    }
}

/// Finds the conflict copies of a folder: every note file whose name is a conflict copy's
/// (`ConflictName`), wherever it was made, with the reason this folder's index recorded.
enum ConflictCopies {
    static func list(in folder: SyncFolder, index: SyncIndex) throws -> [ConflictCopy] {
        let records = try index.conflictRecords()
        let listing = try FolderWalker(root: folder.root, fileSuffix: "").walk()
        let ignore = folder.ignoreRules()
        let present = Set(listing.entries.map { NotePath.nfc($0.path) })
        // A case clash's copy belongs to the note whose name differs from its own only in case.
        let byCollisionKey = Dictionary(present.compactMap { path in (try? NotePath(entry: path)).map { ($0.collisionKey, path) } },
                                        uniquingKeysWith: { first, _ in first })
        var copies: [ConflictCopy] = []
        for entry in listing.entries {
            let path = NotePath.nfc(entry.path)
            guard !ignore.isIgnored(path), let parsed = EntryName.parseConflict(path) else { continue }
            let record = records[path]
            var note = record?.path ?? parsed.entry
            if !present.contains(note), let key = try? NotePath(entry: note).collisionKey, let other = byCollisionKey[key] { note = other }
            let renameTo = EntryName.newEntryProblem(note) == nil ? nil : freeName(for: note, present: present)
            copies.append(ConflictCopy(copy: path, path: note, reason: record?.reason, device: parsed.device,
                                       noteExists: present.contains(note), renameTo: renameTo))
        }
        return copies.sorted { ($0.path, $0.copy) < ($1.path, $1.copy) }
    }

    /// A name for the text of a note whose own name sync cannot store: the name with what no
    /// path may hold replaced (`SyncableName.repaired`), with `-2`, `-3`... before the
    /// extension when that is taken; `nil` when none is found.
    static func freeName(for note: String, present: Set<String>) -> String? {
        let repaired = SyncableName.repaired(note)
        let taken = Set(present.map(NotePath.collisionKey(of:)))
        let stem = EntryKind.droppingNoteExtension(repaired)
        let ext = String(repaired.dropFirst(stem.count))
        for attempt in 1...100 {
            let candidate = attempt == 1 ? repaired : "\(stem)-\(attempt)\(ext)"
            if EntryName.newEntryProblem(candidate) == nil, !taken.contains(NotePath.collisionKey(of: candidate)) { return candidate }
        }
        return nil
    }
}
