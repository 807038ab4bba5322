import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// A folder that slept past the server's tombstone retention gets `410 resync_required`, syncs
/// again from the beginning and still converges, without losing a local edit.
@Suite("Sync resync")
struct SyncResyncTests {
    @Test("after a 410 the folder resyncs in full: purged deletions apply, an edited note is created again")
    func resyncAfterPurgedTombstones() async throws {
        try await SyncHarness.with(serverArguments: ["--tombstone-ttl", "1"]) { h in
            try await h.initFolder("a")
            for name in ["keep", "gone", "edited", "x", "y"] { try h.write("a", "\(name).md", "\(name)\n") }
            try await h.sync("a")
            try await h.initFolder("b")
            try await h.sync("b")
            try h.remove("b", "gone.md")
            try h.remove("b", "edited.md")
            try await h.sync("b")
            try h.write("a", "edited.md", "edited while b deleted it\n")
            try await Task.sleep(for: .milliseconds(2500))  // past the 1 s retention and the purge that follows

            let report = try await h.sync("a")
            #expect(report.warnings.contains { $0.contains("full resync") })
            #expect(h.read("a", "gone.md") == nil)
            #expect(try await h.serverNotes()["edited.md"] == "edited while b deleted it\n")
            try await h.sync("b")
            #expect(try h.textTree("a") == (try await h.serverNotes()))
            #expect(try h.textTree("b") == (try await h.serverNotes()))
        }
    }
}
