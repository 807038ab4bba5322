import Foundation
import Synchronization
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// DESIGN 4.8 against a server that lies, and 4.10 against a user who types during a sync.
@Suite("Sync safety")
struct SyncSafetyTests {
    /// A server that answers the changes feed with whatever a test wants: the real server
    /// validates paths, so only a stand-in can play a hostile one.
    struct HostileRemote: SyncRemote {
        let notes: [NoteResource]

        func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
            ChangesPage(changes: since == nil ? notes : [], cursor: "99", hasMore: false)
        }

        func batch(_ operations: [BatchOperation]) async throws -> [BatchResult] { [] }

        func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? { nil }
    }

    @Test("a hostile server cannot make the client write outside the folder or into .notes/")
    func hostilePathsAreRefused() async throws {
        let work = try TemporaryDirectory("notes-hostile")
        defer { work.remove() }
        let root = work.appending("folder").path
        let folder = try SyncFolder.bind(root: root, server: "http://127.0.0.1:9", device: "t")
        let hostile = ["../escape.md", "/tmp/absolute.md", ".notes/index.sqlite.md", "a/../../up.md", "a//b.md", "./dot.md",
                       "nul\u{0}.md", "back\\slash.md", "ctl\u{1B}.md", "", "a/.hidden/x.md", "not-markdown.txt", "fine.md"]
        let notes = hostile.enumerated().map { offset, path in
            NoteResource(id: NoteID(), path: path, content: "payload \(offset)\n", hash: SHA256.hex(of: "payload \(offset)\n"),
                         rev: Int64(offset + 1), size: 10, createdAt: "", updatedAt: "", deleted: false)
        }
        let index = try SyncIndex(path: folder.indexPath)
        defer { try? index.close() }
        let report = try await SyncEngine(folder: folder, index: index, remote: HostileRemote(notes: notes), options: SyncOptions()).run()
        #expect(report.downloaded == 1)
        #expect(report.warnings.filter { $0.contains("unsafe path") }.count == hostile.count - 1)
        let written = try ExportFixture.tree(work.url).keys.filter { !$0.hasPrefix("folder/.notes/") }
        #expect(written == ["folder/fine.md"])
        #expect(try index.integrityCheck() == "ok")
    }

    /// Forwards to the real server, running `hook` once after the scan (during the first
    /// changes request): the moment a user saves a file in the middle of a sync.
    struct HookedRemote: SyncRemote {
        let base: any SyncRemote
        let hook: @Sendable () -> Void
        let fired = Flag()

        func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
            let page = try await base.changes(since: since, limit: limit, includeContent: includeContent)
            if fired.setOnce() { hook() }
            return page
        }

        func batch(_ operations: [BatchOperation]) async throws -> [BatchResult] { try await base.batch(operations) }

        func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? { try await base.revision(id: id, rev: rev) }
    }

    @Test("a file saved during a sync is not overwritten, and the next sync keeps both versions")
    func fileChangedDuringSyncIsKept() async throws {
        try await SyncHarness.with { h in
            try await h.initFolder("a")
            try h.write("a", "n.md", "v1\n")
            try h.write("a", "other.md", "o\n")
            try await h.sync("a")
            try await h.initFolder("b")
            try await h.sync("b")
            try h.write("b", "n.md", "v2 from b\n")
            try await h.sync("b")

            let path = h.folder("a") + "/n.md"
            _ = try await h.syncInProcess("a", wrap: { remote in
                HookedRemote(base: remote, hook: { try? Data("typed during sync\n".utf8).write(to: URL(fileURLWithPath: path)) })
            })
            #expect(h.read("a", "n.md") == "typed during sync\n")
            let report = try await h.syncInProcess("a")
            let texts = Set(try h.textTree("a").values)
            #expect(texts.contains("typed during sync\n") && texts.contains("v2 from b\n"))
            #expect(report.conflicts.count == 1)
        }
    }
}

/// A thread-safe once-flag.
final class Flag: Sendable {
    private let state = Mutex(false)

    /// True the first time only.
    func setOnce() -> Bool {
        state.withLock { value in
            defer { value = true }
            return !value
        }
    }
}
