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

    // Folders are kept open between the files of a page (`FolderHandles`): what the user does to
    // a folder between two writes must still be seen.

    @Test("a folder deleted between two writes is made again, and the second file lands in it")
    func aFolderDeletedBetweenTwoWritesIsMadeAgain() throws {
        try withFiles { files, _ in
            _ = try #require(try files.write(Array("one\n".utf8), to: "a/b/one.md", expecting: .absent))
            try FileManager.default.removeItem(atPath: files.root + "/a")
            #expect(try files.occupant("a/b/two.md") == .none)
            let written = try #require(try files.write(Array("two\n".utf8), to: "a/b/two.md", expecting: .absent))
            #expect(try files.read("a/b/two.md") == (Array("two\n".utf8), written))
            #expect(try FileManager.default.contentsOfDirectory(atPath: files.root + "/a/b") == ["two.md"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: files.scratch).isEmpty)
        }
    }

    @Test("a folder replaced by a link between two writes is never written through")
    func aFolderReplacedByALinkBetweenTwoWritesIsNeverWrittenThrough() throws {
        try withFiles { files, outside in
            let target = outside + "/elsewhere"
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
            _ = try #require(try files.write(Array("one\n".utf8), to: "a/one.md", expecting: .absent))
            try FileManager.default.moveItem(atPath: files.root + "/a", toPath: outside + "/moved-away")
            try FileManager.default.createSymbolicLink(atPath: files.root + "/a", withDestinationPath: target)
            #expect { try files.write(Array("two\n".utf8), to: "a/two.md", expecting: .absent) } throws: {
                ($0 as? SyncFileError)?.unsafe == true
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: target).isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside + "/moved-away") == ["one.md"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: files.scratch).isEmpty)
        }
    }

    @Test("writes across more folders than are kept open each land in their own folder")
    func writesAcrossManyFoldersLandInTheirOwnFolders() throws {
        try withFiles { files, _ in
            let count = FolderHandles.limit * 2 + 3
            for round in 0..<2 {
                for folder in 0..<count {
                    _ = try #require(try files.write(Array("\(folder) \(round)\n".utf8), to: "f\(folder)/n\(round).md", expecting: .absent))
                }
                files.flush()
            }
            for folder in 0..<count {
                #expect(try files.read("f\(folder)/n1.md").bytes == Array("\(folder) 1\n".utf8))
                #expect(try FileManager.default.contentsOfDirectory(atPath: files.root + "/f\(folder)").sorted() == ["n0.md", "n1.md"])
            }
        }
    }
}
