import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

@Suite("FolderWalker (the note walk export and sync share)")
struct ExportFolderWalkerTests {
    @Test("lists every .md file, sorted, with size, mtime and inode; skips dot-files, .notes/, links and others")
    func listsNotesOnly() throws {
        let root = try TemporaryDirectory("notes-walk")
        defer { root.remove() }
        let files = ["z.md": "zz", "a/b/c.md": "c", "a/x.md": "", "a/readme.txt": "no", ".hidden.md": "no",
                     ".notes/index.md": "no", "a/.git/HEAD.md": "no", "folder.md/inner.md": "yes"]
        try Self.write(files, in: root)
        let outside = try TemporaryDirectory("notes-walk-outside")
        defer { outside.remove() }
        try Data("secret".utf8).write(to: outside.appending("secret.md"))
        try FileManager.default.createSymbolicLink(atPath: root.appending("linked-file.md").path, withDestinationPath: root.appending("z.md").path)
        try FileManager.default.createSymbolicLink(atPath: root.appending("linked-folder").path, withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: root.appending("dangling.md").path, withDestinationPath: "/nonexistent")

        let listing = try FolderWalker(root: root.path).walk()
        #expect(listing.entries.map(\.path) == ["a/b/c.md", "a/x.md", "folder.md/inner.md", "z.md"])
        #expect(listing.skipped.isEmpty)
        let z = try #require(listing.entries.last)
        var info = stat()
        #expect(lstat(root.appending("z.md").path, &info) == 0)
        #expect(z.size == 2)
        #expect(z.inode == UInt64(info.st_ino))
        #expect(z.modifiedSeconds == Int64(info.st_mtim.tv_sec))
        #expect(z.modifiedNanoseconds == Int64(info.st_mtim.tv_nsec))
    }

    @Test("a name that is not valid UTF-8 is reported, not listed and not dropped silently")
    func reportsInvalidNames() throws {
        let root = try TemporaryDirectory("notes-walk")
        defer { root.remove() }
        try Self.createFile(named: Array("bad".utf8) + [0xFF] + Array(".md".utf8), in: root)
        let listing = try FolderWalker(root: root.path).walk()
        #expect(listing.entries.isEmpty)
        #expect(listing.skipped.map(\.path) == ["bad\u{FFFD}.md"])
    }

    @Test("a name's bytes are taken as String(validating:) takes them, at the ASCII edge too (the ASCII fast path)")
    func namesReadAsValidatingReadsThem() throws {
        let root = try TemporaryDirectory("notes-walk")
        defer { root.remove() }
        // DEL (0x7F) is the last ASCII byte; a lone 0x80 is the first that needs validating and
        // is invalid; a two-byte é is valid.
        let names: [[UInt8]] = [Array("del".utf8) + [0x7F] + Array(".md".utf8), Array("lone".utf8) + [0x80] + Array(".md".utf8),
                                Array("caf".utf8) + [0xC3, 0xA9] + Array(".md".utf8), Array("plain.md".utf8)]
        for name in names { try Self.createFile(named: name, in: root) }
        let expected = names.compactMap { String(validating: $0, as: UTF8.self) }.sorted()
        for listing in [try FolderWalker(root: root.path).walk(), try FolderWalker(root: root.path).walk(inTwo: true)] {
            #expect(listing.entries.map(\.path) == expected)
            #expect(listing.skipped.map(\.path) == ["lone\u{FFFD}.md"])
        }
    }

    @Test("walking in two threads lists exactly what one thread lists, in the same order, skips included")
    func twoThreadsListAsOne() throws {
        let root = try TemporaryDirectory("notes-walk")
        defer { root.remove() }
        // Folders whose names sort apart from their paths ("ab" before "ab.x", but "ab.x/" before
        // "ab/"), files at the top, an odd number of folders, a folder with only a folder inside.
        var files = ["top.md": "t", "ab/1.md": "1", "ab.x/2.md": "2", "ab-/3.md": "3", "z/deep/er/4.md": "4",
                     "m/readme.txt": "no", "ab/.hidden.md": "no", "a.md": "a"]
        for folder in 0..<7 {
            for note in 0..<5 { files["f\(folder)/n\(note).md"] = "\(folder)-\(note)" }
        }
        try Self.write(files, in: root)
        try Self.createFile(named: Array("f3/bad".utf8) + [0xFF] + Array(".md".utf8), in: root)
        let one = try FolderWalker(root: root.path, fileSuffix: "").walk()
        let two = try FolderWalker(root: root.path, fileSuffix: "").walk(inTwo: true)
        #expect(two.entries == one.entries)
        #expect(two.entries.map(\.path) == one.entries.map(\.path).sorted())
        #expect(two.entries.count == files.count - 1)  // all but the dot-file
        #expect(two.skipped == one.skipped)
        #expect(two.skipped.map(\.path) == ["f3/bad\u{FFFD}.md"])
    }

    @Test("names beyond ASCII (NFD and NFC) come out in string order, in one thread as in two")
    func nonASCIINamesSortAsStrings() throws {
        let root = try TemporaryDirectory("notes-walk")
        defer { root.remove() }
        let names = ["e\u{301}t\u{E9}.md", "\u{E9}a.md", "zz.md", "e.md", "f.md", "\u{1F600}.md", "E\u{301}.md", "\u{C9}b.md"]
        for folder in ["a", "b", "\u{E9}", "e\u{301}x"] {
            try FileManager.default.createDirectory(at: root.appending(folder), withIntermediateDirectories: true)
            for name in names { try Data("x".utf8).write(to: root.appending(folder + "/" + name)) }
        }
        let one = try FolderWalker(root: root.path).walk()
        let two = try FolderWalker(root: root.path).walk(inTwo: true)
        #expect(one.entries.count == 32)
        #expect(one.entries.map(\.path) == one.entries.map(\.path).sorted())
        #expect(two.entries == one.entries)
    }

    @Test("walking in two threads: a root with no folders, or one, lists its files")
    func twoThreadsFewFolders() throws {
        let root = try TemporaryDirectory("notes-walk")
        defer { root.remove() }
        #expect(try FolderWalker(root: root.path).walk(inTwo: true).entries.isEmpty)
        try Data("x".utf8).write(to: root.appending("x.md"))
        #expect(try FolderWalker(root: root.path).walk(inTwo: true).entries.map(\.path) == ["x.md"])
        try FileManager.default.createDirectory(at: root.appending("only"), withIntermediateDirectories: true)
        try Data("y".utf8).write(to: root.appending("only/y.md"))
        #expect(try FolderWalker(root: root.path).walk(inTwo: true).entries.map(\.path) == ["only/y.md", "x.md"])
        #expect(throws: FolderWalkError.self) { try FolderWalker(root: "/nonexistent/notes").walk(inTwo: true) }
    }

    @Test("a root that does not exist is an error naming it")
    func missingRoot() {
        #expect(throws: FolderWalkError.self) { try FolderWalker(root: "/nonexistent/notes").walk() }
    }

    /// Creates an empty file under `root` whose name is `name`'s bytes as they are (not valid
    /// UTF-8, for some tests: no Foundation API writes such a name).
    private static func createFile(named name: [UInt8], in root: TemporaryDirectory) throws {
        let path = Array(root.path.utf8) + [UInt8(ascii: "/")] + name + [0]
        let fd = path.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        try #require(fd >= 0)
        close(fd)
    }

    /// Writes each of `files` (path: text) under `root`, making the folders on the way.
    private static func write(_ files: [String: String], in root: TemporaryDirectory) throws {
        for (path, text) in files {
            let url = root.appending(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }
}
