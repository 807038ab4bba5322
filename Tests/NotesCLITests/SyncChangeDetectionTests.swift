import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

#if canImport(Glibc)
import Glibc
#endif

/// The scan trusts a file as unchanged only when its size, modification time (to the
/// nanosecond) and inode all equal the index's (docs/architecture.md, Sync invariants 11), through its fast path as through
/// the full lookup: an edit that changes any one of the three is read and uploaded, while the
/// other notes of the folder are not read. Each test runs the real `notes` binary on a real folder.
@Suite("Sync change detection by metadata")
struct SyncChangeDetectionTests {
    /// Ten notes in two folders, synced, then synced again so the index holds their metadata.
    private static func syncedFolder(_ h: LiveServer) async throws {
        try await h.initFolder("a")
        for i in 0..<10 { try h.write("a", "f\(i % 2)/n\(i).md", "note \(i) text\n") }
        try await h.sync("a")
        try await h.sync("a")  // catches up on its own revisions
        let quiet = try await h.sync("a")
        #expect(quiet.isNoOp && quiet.filesRead == 0, "\(quiet)")
    }

    /// Syncs folder `a` and expects exactly `path` read and uploaded with `text`.
    private static func expectFoundAndUploaded(_ h: LiveServer, _ path: String, _ text: String,
                                               sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let report = try await h.sync("a", sourceLocation: sourceLocation)
        #expect(report.filesRead == 1, "\(report)", sourceLocation: sourceLocation)
        #expect(report.uploaded == 1, "\(report)", sourceLocation: sourceLocation)
        #expect(try await h.serverNotes()[path] == text, sourceLocation: sourceLocation)
        #expect(try await h.sync("a").filesRead == 0, "recognised by its new metadata afterwards", sourceLocation: sourceLocation)
    }

    @Test("a note replaced by a new file of the same size and modification time (a new inode) is found and uploaded")
    func replacedFileWithSameSizeAndTimeIsFound() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await Self.syncedFolder(h)
            let path = h.folder("a") + "/f1/n3.md"
            let before = try Self.metadata(path)
            // An editor's save: a new file written beside the note, given the old time, renamed over it.
            let replacement = h.folder("a") + "/f1/.n3.md.swp"
            try Data("NOTE 3 TEXT\n".utf8).write(to: URL(fileURLWithPath: replacement))
            try Self.setModificationTime(replacement, before.st_mtim)
            #expect(rename(replacement, path) == 0)
            let after = try Self.metadata(path)
            #expect(after.st_size == before.st_size && Self.sameTime(after.st_mtim, before.st_mtim))
            #expect(after.st_ino != before.st_ino)
            try await Self.expectFoundAndUploaded(h, "f1/n3.md", "NOTE 3 TEXT\n")
        }
    }

    @Test("a note rewritten in place with the same size and a modification time one nanosecond later is found")
    func sameSizeEditOneNanosecondLaterIsFound() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await Self.syncedFolder(h)
            let path = h.folder("a") + "/f0/n4.md"
            let before = try Self.metadata(path)
            try Self.overwriteInPlace(path, with: "NOTE 4 TEXT\n")
            var later = before.st_mtim
            later.tv_nsec += 1
            if later.tv_nsec == 1_000_000_000 { later.tv_sec += 1; later.tv_nsec = 0 }
            try Self.setModificationTime(path, later)
            let after = try Self.metadata(path)
            #expect(after.st_size == before.st_size && after.st_ino == before.st_ino)
            #expect(!Self.sameTime(after.st_mtim, before.st_mtim), "the filesystem keeps nanoseconds")
            try await Self.expectFoundAndUploaded(h, "f0/n4.md", "NOTE 4 TEXT\n")
        }
    }

    @Test("a note rewritten in place with another size and its old modification time put back is found")
    func otherSizeWithOldTimeIsFound() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await Self.syncedFolder(h)
            let path = h.folder("a") + "/f1/n7.md"
            let before = try Self.metadata(path)
            try Self.overwriteInPlace(path, with: "note 7 text, longer now\n")
            try Self.setModificationTime(path, before.st_mtim)
            let after = try Self.metadata(path)
            #expect(after.st_ino == before.st_ino && Self.sameTime(after.st_mtim, before.st_mtim))
            #expect(after.st_size != before.st_size)
            try await Self.expectFoundAndUploaded(h, "f1/n7.md", "note 7 text, longer now\n")
        }
    }

    @Test("a note moved to another folder with its metadata kept is a rename, not a delete and a new note")
    func movedFileKeepingMetadataIsARename() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await Self.syncedFolder(h)
            let inode = try Self.metadata(h.folder("a") + "/f0/n2.md").st_ino
            try h.move("a", "f0/n2.md", "f1/n2.md")
            #expect(try Self.metadata(h.folder("a") + "/f1/n2.md").st_ino == inode)
            let report = try await h.sync("a")
            #expect(report.renamed == 1 && report.uploaded == 0 && report.deleted == 0, "\(report)")
            let notes = try await h.serverNotes()
            #expect(notes["f1/n2.md"] == "note 2 text\n" && notes["f0/n2.md"] == nil)
        }
    }

    // MARK: Files

    private static func metadata(_ path: String) throws -> stat {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw CLIError.failure("lstat \(path): \(String(cString: strerror(errno)))") }
        return info
    }

    private static func sameTime(_ a: timespec, _ b: timespec) -> Bool {
        a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec
    }

    /// Sets `path`'s modification time to `time` (keeping its access time).
    private static func setModificationTime(_ path: String, _ time: timespec) throws {
        let times = [try metadata(path).st_atim, time]
        guard utimensat(AT_FDCWD, path, times, 0) == 0 else {
            throw CLIError.failure("utimensat \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Replaces the bytes of `path` in place (same inode) with `text`.
    private static func overwriteInPlace(_ path: String, with text: String) throws {
        let fd = open(path, O_WRONLY | O_TRUNC)
        guard fd >= 0 else { throw CLIError.failure("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw CLIError.failure("write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
