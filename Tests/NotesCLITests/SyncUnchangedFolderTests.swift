import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

#if canImport(Glibc)
import Glibc
#endif

/// A sync of a folder where nothing changed takes a fast path (`IndexTable.isUnchanged`) that
/// never makes the index's rows: these tests hold it to the general scan (`LocalScan.scan`) on
/// real folders synced by the real binary. Whenever it answers "unchanged", the general scan
/// finds every note clean, confirmed and at its name, nothing new, missing or to look at closer;
/// every change the general scan sees makes it answer "changed", and the sync then finds it.
@Suite("Sync of an unchanged folder")
struct SyncUnchangedFolderTests {
    /// A synced folder with notes in two folders, one with a name beyond ASCII (in NFC), and an
    /// attachment; synced until the index holds every file's metadata.
    private static func syncedFolder(_ h: LiveServer) async throws {
        try await h.initFolder("a")
        for i in 0..<8 { try h.write("a", "f\(i % 2)/n\(i).md", "note \(i) text\n") }
        try h.write("a", "f0/caf\u{E9}.md", "accents\n")
        try h.write("a", "f1/picture.png", Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3]))
        try await h.sync("a")
        try await h.sync("a")
        let quiet = try await h.sync("a")
        #expect(quiet.isNoOp && quiet.filesRead == 0, "\(quiet)")
    }

    /// What the fast check and the general scan say of folder `name` as it is now.
    private static func verdicts(_ h: LiveServer, _ name: String) async throws -> (fast: Bool, general: Bool) {
        let folder = try SyncFolder.find(from: h.folder(name))
        let index = try SyncIndex(path: folder.indexPath)
        defer { try? index.close() }
        let table = try index.table()
        let listing = try FolderWalker(root: folder.root, fileSuffix: "").walk(inTwo: true)
        let fast = table.isUnchanged(by: listing, caseInsensitive: folder.config.caseInsensitive)
        let rows = table.indexRows()
        // The rows as the index read made them before `IndexTable`: a string per column.
        let expected = try index.database.read { db in
            try db.compactQuery("SELECT id, path, disk_path, rev, hash, size, mtime_ns, inode FROM notes") { row -> IndexRow? in
                guard let id = NoteID(row.string(0)) else { return nil }
                return IndexRow(base: SyncBase(id: id, path: row.string(1), rev: row.int64(3), hash: row.string(4)), diskPath: row.string(2),
                                stat: FileStat(size: row.int64(5), mtimeNanoseconds: row.int64(6), inode: UInt64(bitPattern: row.int64(7))))
            }
        }
        #expect(rows.sorted { $0.base.id < $1.base.id } == expected.sorted { $0.base.id < $1.base.id }, "the table makes the rows a string per column made")
        let snapshot = try await LocalScan(folder: folder, files: SafeFiles(root: folder.root, scratch: folder.scratchDirectory),
                                           ignore: folder.ignoreRules(), limits: { ResponseBudget.defaultLimits })
            .scan(rows: rows) { listing }
        let general = snapshot.tracked.count == table.rows.count
            && snapshot.tracked.values.allSatisfy { $0.local == .clean && $0.row.base.rev > 0 && !$0.frozen && $0.diskPath == $0.row.diskPath }
            && snapshot.untracked.isEmpty && snapshot.cleanOnCloserLook.isEmpty
            && snapshot.filesRead == 0 && snapshot.localChanges.isEmpty
        return (fast, general)
    }

    /// Runs SQL on folder `name`'s index.
    private static func editIndex(_ h: LiveServer, _ name: String, _ sql: String) throws {
        let folder = try SyncFolder.find(from: h.folder(name))
        let index = try SyncIndex(path: folder.indexPath)
        defer { try? index.close() }
        _ = try index.database.write { db in try db.run(sql) }
    }

    /// Expects the fast check to say "changed", and never "unchanged" where the general scan does not.
    private static func expectChanged(_ h: LiveServer, _ what: Comment, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let verdict = try await verdicts(h, "a")
        #expect(!verdict.fast, what, sourceLocation: sourceLocation)
    }

    /// Expects the fast check to say "unchanged" only where the general scan does.
    private static func expectAgreement(_ verdict: (fast: Bool, general: Bool), sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!verdict.fast || verdict.general, sourceLocation: sourceLocation)
    }

    @Test("on a synced folder left alone the fast check and the general scan both find it unchanged, and a sync changes nothing")
    func unchangedFolderAgrees() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await Self.syncedFolder(h)
            let verdict = try await Self.verdicts(h, "a")
            #expect(verdict.fast && verdict.general)
            let report = try await h.sync("a")
            #expect(report.isNoOp && report.filesRead == 0 && report.local.isEmpty && report.warnings.isEmpty, "\(report)")
        }
    }

    @Test("every local change the general scan sees makes the fast check answer changed, and the sync uploads it")
    func localChangesAreNotUnchanged() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await Self.syncedFolder(h)
            let path = h.folder("a") + "/f0/n2.md"
            var info = stat()
            #expect(lstat(path, &info) == 0)
            // Touched: the same bytes, one nanosecond later.
            var times = [info.st_atim, info.st_mtim]
            times[1].tv_nsec += 1
            if times[1].tv_nsec == 1_000_000_000 { times[1].tv_sec += 1; times[1].tv_nsec = 0 }
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
            try await Self.expectChanged(h, "touched")
            #expect(try await Self.verdicts(h, "a").general == false, "the general scan looks closer")
            try await h.sync("a")
            #expect(try await Self.verdicts(h, "a") == (true, true), "the new metadata is recorded")

            try h.write("a", "f1/new.md", "new\n")
            try await Self.expectChanged(h, "a new note")
            #expect(try await h.sync("a").uploaded == 1)
            try await h.sync("a")
            #expect(try await Self.verdicts(h, "a") == (true, true))

            try h.remove("a", "f1/n3.md")
            try await Self.expectChanged(h, "a deleted note")
            #expect(try await h.sync("a").deleted == 1)
            #expect(try await Self.verdicts(h, "a") == (true, true))

            try h.move("a", "f0/n4.md", "f1/moved.md")
            try await Self.expectChanged(h, "a renamed note")
            #expect(try await h.sync("a").renamed == 1)
            try await h.sync("a")
            #expect(try await Self.verdicts(h, "a") == (true, true))

            // The same size and time, another inode: an editor's save by rename.
            let target = h.folder("a") + "/f0/n6.md"
            #expect(lstat(target, &info) == 0)
            let replacement = h.folder("a") + "/f0/.n6.swp"
            try Data("NOTE 6 TEXT\n".utf8).write(to: URL(fileURLWithPath: replacement))
            var same = [info.st_atim, info.st_mtim]
            #expect(utimensat(AT_FDCWD, replacement, &same, 0) == 0)
            #expect(rename(replacement, target) == 0)
            try await Self.expectChanged(h, "a note replaced with the same size and time")
            #expect(try await h.sync("a").uploaded == 1)
            #expect(try await h.serverNotes()["f0/n6.md"] == "NOTE 6 TEXT\n")
        }
    }

    @Test("index rows the general scan treats with care make the fast check answer changed")
    func unusualRowsAreNotUnchanged() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await Self.syncedFolder(h)
            // A create not yet confirmed: the push sends it.
            let folder = try SyncFolder.find(from: h.folder("a"))
            let index = try SyncIndex(path: folder.indexPath)
            let rev = try index.database.read { db in try db.scalarInt("SELECT rev FROM notes WHERE path = 'f0/n0.md'") }
            try index.close()
            try Self.editIndex(h, "a", "UPDATE notes SET rev = 0 WHERE path = 'f0/n0.md'")
            try await Self.expectChanged(h, "a row of rev 0")
            #expect(try await Self.verdicts(h, "a").general == false)
            try Self.editIndex(h, "a", "UPDATE notes SET rev = \(rev ?? 1) WHERE path = 'f0/n0.md'")
            #expect(try await Self.verdicts(h, "a") == (true, true))

            // An id in another spelling: the general read takes it in its canonical one.
            try Self.editIndex(h, "a", "UPDATE notes SET id = upper(id) WHERE path = 'f1/n1.md'")
            try await Self.expectChanged(h, "an id in capitals")
            try Self.editIndex(h, "a", "UPDATE notes SET id = lower(id)")

            // A name on disk other than the path.
            try Self.editIndex(h, "a", "UPDATE notes SET disk_path = 'f1/N1.md' WHERE path = 'f1/n1.md'")
            try await Self.expectChanged(h, "a row whose name on disk differs")
            try Self.editIndex(h, "a", "UPDATE notes SET disk_path = path")
            #expect(try await Self.verdicts(h, "a") == (true, true))

            // A row the index holds twice over for one file is not "one file per row".
            try Self.editIndex(h, "a", """
                INSERT INTO notes (id, path, disk_path, rev, hash, size, mtime_ns, inode)
                SELECT '00000000-0000-4000-8000-000000000000', path, disk_path, rev, hash, size, mtime_ns, inode FROM notes WHERE path = 'f0/n2.md'
                """)
            try await Self.expectChanged(h, "two rows for one file")
        }
    }

    @Test("a note file under a name not in NFC makes the fast check answer changed, and syncs as before")
    func decomposedNameIsNotUnchanged() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await Self.syncedFolder(h)
            try h.write("a", "f1/re\u{301}sume\u{301}.md", "decomposed\n")
            try await Self.expectChanged(h, "a new decomposed name")
            try await h.sync("a")
            try await h.sync("a")
            let verdict = try await Self.verdicts(h, "a")
            Self.expectAgreement(verdict)
            #expect(verdict.general)
            #expect(try await h.sync("a").isNoOp)
        }
    }

    @Test("with the folder unchanged, a change on the server is still pulled")
    func serverChangeIsPulledWhenUnchangedHere() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await Self.syncedFolder(h)
            let other = try await h.notes(["clone", h.serverURL, h.folder("b")])
            #expect(other.exitCode == 0, "\(other.stderr)")
            try h.write("b", "f0/n0.md", "edited elsewhere\n")
            #expect(try await h.sync("b").uploaded == 1)
            #expect(try await Self.verdicts(h, "a") == (true, true))
            let report = try await h.sync("a")
            #expect(report.downloaded == 1, "\(report)")
            #expect(h.read("a", "f0/n0.md") == "edited elsewhere\n")
        }
    }
}
