import Foundation
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
        for (path, text) in files {
            let url = root.appending(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
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
        let name: [UInt8] = Array("bad".utf8) + [0xFF] + Array(".md".utf8)
        let path = Array(root.path.utf8) + [UInt8(ascii: "/")] + name + [0]
        let fd = path.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        try #require(fd >= 0)
        close(fd)
        let listing = try FolderWalker(root: root.path).walk()
        #expect(listing.entries.isEmpty)
        #expect(listing.skipped.map(\.path) == ["bad\u{FFFD}.md"])
    }

    @Test("a root that does not exist is an error naming it")
    func missingRoot() {
        #expect(throws: FolderWalkError.self) { try FolderWalker(root: "/nonexistent/notes").walk() }
    }
}
