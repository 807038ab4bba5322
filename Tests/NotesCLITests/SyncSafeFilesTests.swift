import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The file operations every sync write goes through: atomic, re-checked, never through a link.
@Suite("Sync safe file operations")
struct SyncSafeFilesTests {
    private func withFiles(_ body: (SafeFiles, String) throws -> Void) throws {
        let directory = try TemporaryDirectory("notes-safefiles")
        defer { directory.remove() }
        let root = directory.appending("root").path
        try FileManager.default.createDirectory(atPath: root + "/.notes/tmp", withIntermediateDirectories: true)
        try body(SafeFiles(root: root, scratch: root + "/.notes/tmp"), directory.path)
    }

    @Test func writesCreateFoldersAndReplaceOnlyWhatWasExpected() throws {
        try withFiles { files, _ in
            let first = try #require(try files.write(Array("one\n".utf8), to: "a/b/n.md", expecting: .absent))
            #expect(try files.read("a/b/n.md").bytes == Array("one\n".utf8))
            // A second create at the same path is refused: something is there now.
            #expect(try files.write(Array("x".utf8), to: "a/b/n.md", expecting: .absent) == nil)
            // Replacing needs the metadata seen before; stale metadata means "changed since": refused.
            let second = try #require(try files.write(Array("two\n".utf8), to: "a/b/n.md", expecting: .file(first)))
            #expect(try files.write(Array("three\n".utf8), to: "a/b/n.md", expecting: .file(first)) == nil)
            #expect(try files.read("a/b/n.md").bytes == Array("two\n".utf8))
            #expect(second.inode != first.inode)  // a new file renamed into place, never rewritten in place
            #expect(try FileManager.default.contentsOfDirectory(atPath: files.scratch).isEmpty)
        }
    }

    @Test func removeAndMoveCheckTheFileFirstAndPruneEmptyFolders() throws {
        try withFiles { files, _ in
            let stat = try #require(try files.write(Array("x\n".utf8), to: "deep/er/n.md", expecting: .absent))
            let stale = FileStat(size: stat.size + 1, mtimeNanoseconds: stat.mtimeNanoseconds, inode: stat.inode)
            #expect(try !files.remove("deep/er/n.md", expecting: stale))
            let moved = try #require(try files.move("deep/er/n.md", to: "other/m.md", expecting: stat))
            #expect(moved.inode == stat.inode)
            #expect(!FileManager.default.fileExists(atPath: files.root + "/deep"))
            #expect(try files.remove("other/m.md", expecting: moved))
            #expect(try files.occupant("other/m.md") == .none)
            #expect(try FileManager.default.contentsOfDirectory(atPath: files.root) == [".notes"])
        }
    }

    @Test("reading and pruning go folder by folder from the root: never through a linked folder")
    func readAndPruneNeverGoThroughALinkedFolder() throws {
        try withFiles { files, outside in
            let target = outside + "/elsewhere"
            try FileManager.default.createDirectory(atPath: target + "/empty", withIntermediateDirectories: true)
            try Data("outside\n".utf8).write(to: URL(fileURLWithPath: target + "/n.md"))
            try FileManager.default.createSymbolicLink(atPath: files.root + "/link", withDestinationPath: target)
            #expect { try files.read("link/n.md") } throws: { ($0 as? SyncFileError)?.unsafe == true }
            files.pruneEmptyFolders(above: "link/empty/gone.md")
            #expect(FileManager.default.fileExists(atPath: target + "/empty"))  // not removed through the link
            #expect(FileManager.default.fileExists(atPath: files.root + "/link"))
            #expect { try files.read("missing/n.md") } throws: { ($0 as? SyncFileError)?.code == ENOENT }
        }
    }

    @Test func symlinksAreNeverFollowed() throws {
        try withFiles { files, outside in
            let target = outside + "/elsewhere"
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: files.root + "/link", withDestinationPath: target)
            #expect(throws: SyncFileError.self) { try files.write(Array("x".utf8), to: "link/n.md", expecting: .absent) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: target).isEmpty)
            try Data("real\n".utf8).write(to: URL(fileURLWithPath: target + "/file.md"))
            try FileManager.default.createSymbolicLink(atPath: files.root + "/alias.md", withDestinationPath: target + "/file.md")
            #expect(try files.occupant("alias.md") == .other)
            #expect(try files.write(Array("x".utf8), to: "alias.md", expecting: .absent) == nil)
            #expect(throws: SyncFileError.self) { try files.read("alias.md") }
            #expect(FileManager.default.contents(atPath: target + "/file.md") == Data("real\n".utf8))
        }
    }
}
