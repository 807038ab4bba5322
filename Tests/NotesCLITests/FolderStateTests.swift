import NotesCore
import Testing
@testable import notes_cli

/// The sync's folder state on its own: its lookups and the invariants it keeps however the
/// engine changes it (docs/architecture.md, Sync invariants 4, 8).
@Suite("Folder state")
struct FolderStateTests {
    private static let stat = FileStat(size: 3, mtimeNanoseconds: 1, inode: 1)

    private static func note(_ path: String, id: NoteID = NoteID(), rev: Int64 = 1, disk: String? = nil) -> TrackedNote {
        let diskPath = disk ?? path
        return TrackedNote(row: IndexRow(base: SyncBase(id: id, path: path, rev: rev, hash: "h"), diskPath: diskPath, stat: stat),
                           local: .clean, diskPath: diskPath, stat: stat)
    }

    private static func file(_ path: String, hash: String = "u") -> UntrackedFile {
        UntrackedFile(path: path, diskPath: path, hash: hash, stat: stat)
    }

    @Test("a tracked note is found by its id and by its file's path, and nowhere else")
    func trackedNoteIsFoundByIDAndPath() {
        var state = FolderState(caseInsensitive: false)
        let note = Self.note("a/b.md")
        state.track(note)
        #expect(state[note.row.base.id]?.diskPath == "a/b.md")
        #expect(state.trackedID(at: "a/b.md") == note.row.base.id)
        #expect(state.trackedID(at: "a/B.md") == nil)
        #expect(!state.isFree("a/b.md"))
        #expect(state.violations.isEmpty)
    }

    @Test("a case-insensitive folder finds a note under any case and either Unicode form of its name")
    func caseInsensitiveKeysFoldCaseAndNormalisation() {
        var state = FolderState(caseInsensitive: true)
        let note = Self.note("Caf\u{E9}.md")
        state.track(note)
        #expect(state.trackedID(at: "CAFE\u{301}.md") == note.row.base.id)
        #expect(!state.isFree("caf\u{E9}.MD"))
        var sensitive = FolderState(caseInsensitive: false)
        sensitive.track(note)
        #expect(sensitive.trackedID(at: "Cafe\u{301}.md") == note.row.base.id)  // NFD on disk is the same note
        #expect(sensitive.trackedID(at: "caf\u{E9}.md") == nil)
    }

    @Test("two tracked notes whose files are one name in two Unicode forms: the smaller id holds the name, whatever the order")
    func smallerIDHoldsAClaimedName() {
        for _ in 0..<20 {
            let ids = [NoteID(), NoteID(), NoteID()]
            var snapshot = LocalSnapshot()
            for (index, id) in ids.enumerated() {
                snapshot.tracked[id] = Self.note("Caf\u{E9}.md", id: id, disk: index.isMultiple(of: 2) ? "Caf\u{E9}.md" : "Cafe\u{301}.md")
            }
            let state = FolderState(snapshot: snapshot, caseInsensitive: false)
            #expect(state.trackedID(at: "Caf\u{E9}.md") == ids.min())
        }
    }

    @Test("moving a note's file releases its old path: no stale key survives a move")
    func moveReleasesOldPath() {
        var state = FolderState(caseInsensitive: false)
        var note = Self.note("old.md")
        state.track(note)
        note.diskPath = "new.md"
        state.track(note)
        #expect(state.trackedID(at: "old.md") == nil)
        #expect(state.isFree("old.md"))
        #expect(state.trackedID(at: "new.md") == note.row.base.id)
        #expect(state.violations.isEmpty)
    }

    @Test("evicting a note (its file removed to make room) frees its path but keeps the note")
    func evictionFreesPathKeepsNote() {
        var state = FolderState(caseInsensitive: false)
        var note = Self.note("x.md")
        state.track(note)
        note.diskPath = nil
        note.stat = nil
        note.local = .missing
        note.evicted = true
        state.track(note)
        #expect(state.isFree("x.md"))
        #expect(state[note.row.base.id]?.evicted == true)
        #expect(state.violations.isEmpty)
    }

    @Test("a path taken over by another note stays with the new owner when the old one moves on")
    func pathTakenOverStaysWithNewOwner() {
        var state = FolderState(caseInsensitive: false)
        var first = Self.note("p.md")
        state.track(first)
        first.diskPath = nil
        state.track(first)  // evicted
        let second = Self.note("p.md")
        state.track(second)
        first.diskPath = "elsewhere.md"
        state.track(first)
        #expect(state.trackedID(at: "p.md") == second.row.base.id)
        #expect(state.trackedID(at: "elsewhere.md") == first.row.base.id)
        #expect(state.violations.isEmpty)
    }

    @Test("untracking forgets the note and its path, and leaves another note's path alone")
    func untrackForgetsOnlyItsOwnPath() {
        var state = FolderState(caseInsensitive: false)
        let kept = Self.note("kept.md")
        let gone = Self.note("gone.md")
        state.track(kept)
        state.track(gone)
        #expect(state.untrack(gone.row.base.id)?.row.base.path == "gone.md")
        #expect(state[gone.row.base.id] == nil)
        #expect(state.isFree("gone.md"))
        #expect(state.trackedID(at: "kept.md") == kept.row.base.id)
        #expect(state.untrack(gone.row.base.id) == nil)
        #expect(state.violations.isEmpty)
    }

    @Test("an untracked file never shadows a tracked note at the same path key")
    func untrackedNeverShadowsTracked() {
        var state = FolderState(caseInsensitive: true)
        let note = Self.note("Same.md")
        state.track(note)
        state.addUntracked(Self.file("same.md"))
        #expect(state.trackedID(at: "same.md") == note.row.base.id)
        #expect(state.untracked(at: "same.md") == nil)  // the tracked note comes first
        #expect(state.untrackedRecord(at: "SAME.md")?.path == "same.md")
        state.untrack(note.row.base.id)
        #expect(state.untracked(at: "same.md")?.path == "same.md")
    }

    @Test("a name is free only when neither a tracked note nor an untracked file holds it")
    func freeNameCountsBothKinds() {
        var state = FolderState(caseInsensitive: false)
        state.addUntracked(Self.file("new.md"))
        #expect(!state.isFree("new.md"))
        #expect(state.isFree("other.md"))
        state.forgetUntracked(Self.file("new.md"))
        #expect(state.isFree("new.md"))
        #expect(!state.hasUntracked)
    }

    @Test("taking the untracked files hands them over in path order and empties the list")
    func takeUntrackedIsOrderedAndEmpties() {
        var state = FolderState(caseInsensitive: false)
        for path in ["c.md", "a.md", "b/z.md"] { state.addUntracked(Self.file(path)) }
        #expect(state.takeUntracked().map(\.path) == ["a.md", "b/z.md", "c.md"])
        #expect(!state.hasUntracked)
        #expect(state.takeUntracked().isEmpty)
    }

    @Test("the state built from a scan finds every note, and two claims on one key go the same way every time")
    func stateFromScanIsSoundAndDeterministic() {
        let low = NoteID("00000000-0000-4000-8000-000000000001")!
        let high = NoteID("00000000-0000-4000-8000-000000000002")!
        var snapshot = LocalSnapshot()
        snapshot.tracked[high] = Self.note("twin.md", id: high, disk: "twin.md")
        snapshot.tracked[low] = Self.note("Twin.md", id: low, disk: "Twin.md")
        snapshot.tracked[NoteID("00000000-0000-4000-8000-000000000003")!] = Self.note("solo.md", id: NoteID("00000000-0000-4000-8000-000000000003")!)
        snapshot.untracked = [Self.file("n.md", hash: "first"), Self.file("N.md", hash: "second")]
        let state = FolderState(snapshot: snapshot, caseInsensitive: true)
        #expect(state.trackedID(at: "TWIN.md") == low)
        #expect(state.untrackedRecord(at: "n.md")?.hash == "first")
        #expect(state.trackedID(at: "solo.md") != nil)
        // Two notes on one key is the one state the checker reports: the scan of a disk that
        // kept both names, which the sync then resolves as a path clash.
        #expect(state.violations.count == 1)
        let sound = FolderState(snapshot: LocalSnapshot(tracked: [low: Self.note("a.md", id: low)]), caseInsensitive: true)
        #expect(sound.violations.isEmpty)
    }

    @Test("only confirmed notes count toward the mass-delete total")
    func confirmedCountSkipsUnconfirmedCreates() {
        var state = FolderState(caseInsensitive: false)
        state.track(Self.note("a.md", rev: 3))
        state.track(Self.note("b.md", rev: 0))
        #expect(state.confirmedCount == 1)
    }
}
