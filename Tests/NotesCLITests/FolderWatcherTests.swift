import Foundation
import NotesTestSupport
import Testing
@testable import notes_cli

/// The folder watchers on their own, in-process, on real folders: what they report, not when.
@Suite("Sync: folder watchers")
struct FolderWatcherTests {
    private func write(_ root: String, _ path: String, _ text: String = "x\n") throws {
        let url = URL(fileURLWithPath: root + "/" + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Takes events from `watcher` until `condition` holds for all taken so far.
    private func collect(_ watcher: any FolderWatcher, until condition: (LocalEvents) -> Bool) async throws -> LocalEvents {
        var seen = LocalEvents()
        _ = try await waitUntil(timeout: 30) {
            let events = watcher.take()
            seen.files.formUnion(events.files)
            seen.vanishedFolders.formUnion(events.vanishedFolders)
            seen.overflowed = seen.overflowed || events.overflowed
            return condition(seen)
        }
        return seen
    }

    #if os(Linux)
    @Test("inotify: a folder made and filled at once is watched, then listed, so none of its files is missed")
    func newFolderFilledQuickly() async throws {
        let folder = try TemporaryDirectory("notes-inotify")
        defer { folder.remove() }
        // Not started: events are read only by `take()`, so every file below exists before its
        // folder's watch does (the race at its worst), and only the listing can find them.
        let watcher = try InotifyWatcher(root: folder.path, injectOverflow: false)
        let expected = Set((0..<20).map { "new/deeper/n\($0).md" })
        for path in expected.sorted() { try write(folder.path, path) }
        try write(folder.path, ".hidden/secret.md")
        let seen = try await collect(watcher) { expected.isSubset(of: $0.files) }
        #expect(expected.isSubset(of: seen.files))
        #expect(!seen.files.contains { $0.hasPrefix(".hidden") }, "dot-folders are never watched")
    }

    @Test("inotify: a folder moved within the tree is reported gone at its old path and its files found at the new one")
    func folderRenamed() async throws {
        let folder = try TemporaryDirectory("notes-inotify")
        defer { folder.remove() }
        try write(folder.path, "old/a.md")
        let watcher = try InotifyWatcher(root: folder.path, injectOverflow: false)
        try watcher.start {}
        defer { watcher.stop() }
        try FileManager.default.moveItem(atPath: folder.path + "/old", toPath: folder.path + "/new")
        let seen = try await collect(watcher) { $0.vanishedFolders.contains("old") && $0.files.contains("new/a.md") }
        #expect(seen.vanishedFolders == ["old"] && seen.files.contains("new/a.md"))
        try write(folder.path, "new/b.md")
        let after = try await collect(watcher) { $0.files.contains("new/b.md") }
        #expect(after.files.contains("new/b.md"), "the moved folder is watched under its new name")
    }
    #endif

    @Test("the periodic-scan fallback reports files created, changed and deleted since its last walk")
    func scanningFallback() async throws {
        let folder = try TemporaryDirectory("notes-scan")
        defer { folder.remove() }
        try write(folder.path, "kept.md")
        try write(folder.path, "edited.md", "before\n")
        try write(folder.path, "gone.md")
        let watcher = ScanningWatcher(root: folder.path, interval: .seconds(3600))
        #expect(watcher.take().isEmpty)
        try write(folder.path, "edited.md", "after, and longer\n")
        try write(folder.path, "sub/new.md")
        try FileManager.default.removeItem(atPath: folder.path + "/gone.md")
        #expect(watcher.take().files == ["edited.md", "sub/new.md", "gone.md"])
        #expect(watcher.take().isEmpty)
    }

    @Test("the periodic-scan fallback sees attachments and notes of every note extension, not only .md files")
    func scanningFallbackSeesEveryFile() async throws {
        let folder = try TemporaryDirectory("notes-scan")
        defer { folder.remove() }
        let watcher = ScanningWatcher(root: folder.path, interval: .seconds(3600))
        #expect(watcher.take().isEmpty)
        try write(folder.path, "Guide.markdown")
        try write(folder.path, "README.MD")
        try write(folder.path, "img/chart.png")
        #expect(watcher.take().files == ["Guide.markdown", "README.MD", "img/chart.png"])
    }
}
