import Testing
@testable import NotesCore

@Suite("Sync planner")
struct SyncPlannerTests {
    let id = NoteID("11111111-2222-3333-4444-555555555555")!
    var base: SyncBase { SyncBase(id: id, path: "a.md", rev: 5, hash: "h0") }

    func remote(path: String = "a.md", rev: Int64 = 9, hash: String = "h1", deleted: Bool = false) -> NoteResource {
        NoteResource(id: id, path: path, content: nil, hash: hash, rev: rev, size: 0,
                     createdAt: "", updatedAt: "", deleted: deleted)
    }

    @Test func nothingNewerOnTheServerIsUpToDate() {
        #expect(SyncPlanner.reconcile(base: base, local: .clean, remote: remote(rev: 5)) == .upToDate)
        #expect(SyncPlanner.reconcile(base: base, local: .missing, remote: remote(rev: 4)) == .upToDate)
    }

    @Test func cleanLocalFollowsTheServer() {
        #expect(SyncPlanner.reconcile(base: base, local: .clean, remote: remote()) == .takeRemote)
        #expect(SyncPlanner.reconcile(base: base, local: .clean, remote: remote(path: "b.md", hash: "h0")) == .takeRemote)
        #expect(SyncPlanner.reconcile(base: base, local: .clean, remote: remote(hash: "h0")) == .record)
        #expect(SyncPlanner.reconcile(base: base, local: .clean, remote: remote(deleted: true)) == .deleteLocal)
    }

    @Test func editBeatsDeleteOnBothSides() {
        // Local delete, remote edit: the note comes back.
        #expect(SyncPlanner.reconcile(base: base, local: .missing, remote: remote()) == .takeRemote)
        // Local edit, remote delete: the local edit is kept and uploaded.
        #expect(SyncPlanner.reconcile(base: base, local: .changed(path: "a.md", hash: "h2"), remote: remote(deleted: true))
                == .keepLocal(path: "a.md"))
        // Delete on both: forget it.
        #expect(SyncPlanner.reconcile(base: base, local: .missing, remote: remote(deleted: true)) == .forget)
    }

    @Test func bothEditedMeansMerge() {
        #expect(SyncPlanner.reconcile(base: base, local: .changed(path: "a.md", hash: "h2"), remote: remote())
                == .merge(path: "a.md"))
    }

    @Test func sameEditOnBothSidesIsRecorded() {
        #expect(SyncPlanner.reconcile(base: base, local: .changed(path: "a.md", hash: "h1"), remote: remote()) == .record)
    }

    @Test func renamesResolveWithoutClocks() {
        // Remote renamed, local edited: the edit moves to the new path.
        #expect(SyncPlanner.reconcile(base: base, local: .changed(path: "a.md", hash: "h2"), remote: remote(path: "b.md", hash: "h0"))
                == .keepLocal(path: "b.md"))
        // Local renamed, remote edited: merge content, keep the local path.
        #expect(SyncPlanner.reconcile(base: base, local: .changed(path: "c.md", hash: "h0"), remote: remote())
                == .merge(path: "c.md"))
        // Both renamed: the local rename wins and is uploaded.
        #expect(SyncPlanner.reconcile(base: base, local: .changed(path: "c.md", hash: "h0"), remote: remote(path: "b.md", hash: "h0"))
                == .keepLocal(path: "c.md"))
        // Same content, local unmoved, remote moved: follow the server.
        #expect(SyncPlanner.reconcile(base: base, local: .changed(path: "a.md", hash: "h1"), remote: remote(path: "b.md"))
                == .takeRemote)
    }

    @Test func unconfirmedCreateIsAdoptedWhenTheServerHasIt() {
        let pending = SyncBase(id: id, path: "a.md", rev: 0, hash: "h1")
        #expect(SyncPlanner.reconcile(base: pending, local: .clean, remote: remote(rev: 3)) == .record)
        #expect(SyncPlanner.reconcile(base: pending, local: .changed(path: "a.md", hash: "h2"), remote: remote(rev: 3))
                == .keepLocal(path: "a.md"))
    }

    @Test func newRemoteNotes() {
        #expect(SyncPlanner.reconcileNew(remote: remote(deleted: true), occupantHash: nil) == .ignore)
        #expect(SyncPlanner.reconcileNew(remote: remote(), occupantHash: nil) == .write)
        #expect(SyncPlanner.reconcileNew(remote: remote(), occupantHash: "h1") == .adopt)
        #expect(SyncPlanner.reconcileNew(remote: remote(), occupantHash: "zz") == .conflictCopyThenWrite)
    }

    @Test func renamesAreDetectedByContentHash() {
        let a = SyncBase(id: NoteID(), path: "x/a.md", rev: 1, hash: "ha")
        let b = SyncBase(id: NoteID(), path: "b.md", rev: 2, hash: "hb")
        let c = SyncBase(id: NoteID(), path: "c.md", rev: 3, hash: "hc")
        let renames = SyncPlanner.detectRenames(missing: [a, b, c], added: [("y/a.md", "ha"), ("renamed.md", "hb"), ("new.md", "hn")])
        #expect(renames == [a.id: "y/a.md", b.id: "renamed.md"])
    }

    @Test func duplicateContentPrefersTheSameFileName() {
        let a = SyncBase(id: NoteID(), path: "old/todo.md", rev: 1, hash: "same")
        let renames = SyncPlanner.detectRenames(missing: [a], added: [("aaa.md", "same"), ("new/todo.md", "same")])
        #expect(renames == [a.id: "new/todo.md"])
    }

    @Test func massDeleteGuard() {
        #expect(!SyncPlanner.isMassDelete(deleting: 0, of: 0))
        #expect(SyncPlanner.isMassDelete(deleting: 3, of: 3))  // an emptied folder
        #expect(!SyncPlanner.isMassDelete(deleting: 10, of: 12))  // not over 20
        #expect(SyncPlanner.isMassDelete(deleting: 21, of: 40))
        #expect(!SyncPlanner.isMassDelete(deleting: 21, of: 42))  // exactly half is allowed
    }

    @Test("the push sends creates, edits, renames and user deletes; never a file sync removed itself")
    func uploadDecisions() {
        let unsent = SyncBase(id: id, path: "a.md", rev: 0, hash: "h0")
        #expect(SyncPlanner.upload(base: base, local: .clean, evicted: false) == .none)
        #expect(SyncPlanner.upload(base: base, local: .changed(path: "b.md", hash: "h0"), evicted: false) == .send)
        #expect(SyncPlanner.upload(base: base, local: .missing, evicted: false) == .send)  // a user's delete
        #expect(SyncPlanner.upload(base: base, local: .missing, evicted: true) == .none)  // made room: not a delete
        #expect(SyncPlanner.upload(base: unsent, local: .clean, evicted: false) == .send)
        #expect(SyncPlanner.upload(base: unsent, local: .missing, evicted: false) == .drop)
    }

    @Test("a resync keeps every file the server does not know, and forgets only what is gone on both sides")
    func unknownNotesAreKept() {
        #expect(SyncPlanner.unknownToServer(local: .clean) == .createAgain)
        #expect(SyncPlanner.unknownToServer(local: .changed(path: "a.md", hash: "h2")) == .createAgain)
        #expect(SyncPlanner.unknownToServer(local: .missing) == .forget)
    }

    @Test("a clean file in the way is removed; an edited or unsyncable one becomes a conflict copy")
    func evictionKeepsEveryEdit() {
        #expect(SyncPlanner.evict(clean: true, frozen: false) == .remove)
        #expect(SyncPlanner.evict(clean: false, frozen: false) == .conflictCopy(unsyncable: false))
        #expect(SyncPlanner.evict(clean: false, frozen: true) == .conflictCopy(unsyncable: true))
        #expect(SyncPlanner.evict(clean: true, frozen: true) == .conflictCopy(unsyncable: true))
    }

    @Test("an obstacle is written over never: left alone, retried, or kept as a conflict copy")
    func obstaclesAreNeverReplaced() {
        #expect(SyncPlanner.clear(.none) == .write)
        #expect(SyncPlanner.clear(.notAFile) == .leaveAlone)
        #expect(SyncPlanner.clear(.file(ignored: true, couldBeNote: false)) == .leaveAlone)  // the user's, even if unsyncable
        #expect(SyncPlanner.clear(.file(ignored: true, couldBeNote: true)) == .leaveAlone)
        #expect(SyncPlanner.clear(.file(ignored: false, couldBeNote: true)) == .retryNextSync)
        #expect(SyncPlanner.clear(.file(ignored: false, couldBeNote: false)) == .moveToConflictCopy)
    }

    @Test func conflictNames() {
        let ms: Int64 = 1_764_437_400_000  // 2025-11-29T17:30:00Z
        #expect(ConflictName.path(for: "notes/todo.md", device: "my laptop", millisecondsSinceEpoch: ms)
                == "notes/todo.conflict-my-laptop-20251129-173000.md")
        #expect(ConflictName.path(for: "a.md", device: "../x/..", millisecondsSinceEpoch: ms, attempt: 2)
                == "a.conflict---x---20251129-173000-2.md")
        let long = String(repeating: "é", count: 200) + ".md"
        let name = ConflictName.path(for: long, device: "d", millisecondsSinceEpoch: ms)
        #expect(name.utf8.count <= NotePath.maxSegmentBytes)
        #expect((try? NotePath(name)) != nil)
        #expect(ConflictName.isConflictCopy(name))
    }

    @Test func conflictNamesReadBack() {
        let ms: Int64 = 1_764_437_400_000
        for (note, device, attempt) in [("notes/todo.md", "my laptop", 1), ("a.md", "phone-2", 3), ("x/é b.md", "d", 1)] {
            let copy = ConflictName.path(for: note, device: device, millisecondsSinceEpoch: ms, attempt: attempt)
            let parsed = ConflictName.parse(copy)
            #expect(parsed?.note == note && parsed?.device == ConflictName.sanitized(device), "\(copy)")
        }
        // A conflict copy of a conflict copy belongs to the copy.
        #expect(ConflictName.parse("n.conflict-a-20251129-173000.conflict-b-20251130-080000.md")?.note == "n.conflict-a-20251129-173000.md")
        for path in ["notes/todo.md", "a.conflict-.md", "a.conflict-d-2025-173000.md", "a.conflict-d-20251129-173000.txt", ".conflict-d-20251129-173000.md"] {
            #expect(ConflictName.parse(path) == nil, "\(path)")
        }
    }

    @Test("the name suggested for an unsyncable one replaces only what no note path may hold")
    func unsyncableNamesAreRepaired() {
        #expect(SyncableName.problem("fine/name.md") == nil)
        #expect(SyncableName.problem("back\\slash.md") != nil)
        #expect(SyncableName.repaired("back\\slash.md") == "back-slash.md")
        #expect(SyncableName.repaired("a\tb/c\u{1}.md") == "a-b/c-.md")
        // Direction overrides go; the zero-width space Khmer writes and spaces at the ends stay.
        #expect(SyncableName.repaired(" x\u{202E}y\u{200B}.md") == " x-y\u{200B}.md")
        #expect(SyncableName.repaired("dir /\u{7}/n.md") == "dir /-/n.md")
        #expect(SyncableName.repaired("a//b.md") == "a/_/b.md")
    }

    @Test func conflictNamesStayWithinThePathLimit() throws {
        let ms: Int64 = 1_764_437_400_000
        // Folders of 900 bytes: the file name is shortened so the whole path fits in 1 KB.
        let folders = (0..<4).map { String(repeating: "\($0)", count: 224) }.joined(separator: "/") + "/"
        let shortened = ConflictName.path(for: folders + String(repeating: "n", count: 100) + ".md", device: "d", millisecondsSinceEpoch: ms)
        #expect(shortened.hasPrefix(folders + "nnn") && shortened.hasSuffix(".conflict-d-20251129-173000.md"))
        #expect(shortened.utf8.count <= NotePath.maxBytes)
        // Folders too deep for any name beside the note: the copy goes to the deepest folder with room.
        let deep = (0..<4).map { String(repeating: "\($0)", count: 250) }
        let note = deep.joined(separator: "/") + "/n.md"
        #expect((try? NotePath(note)) != nil)
        let copy = try NotePath(ConflictName.path(for: note, device: "d", millisecondsSinceEpoch: ms, attempt: 12))
        #expect(copy.value == deep.prefix(3).joined(separator: "/") + "/n.conflict-d-20251129-173000-12.md")
    }
}
