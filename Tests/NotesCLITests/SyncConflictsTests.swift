import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// Conflict copies a user can find and settle: `notes conflicts` and `notes resolve`, over the
/// real server and binaries; and appends on two devices, which merge instead.
@Suite("Sync conflicts and resolve end to end")
struct SyncConflictsTests {
    /// `notes ARGS` run from `directory`.
    private func notes(_ h: SyncHarness, _ arguments: [String], in directory: String) async throws -> ProcessResult {
        try await ProcessRunner.run(BuiltProducts.client, arguments, environment: h.client.environment,
                                    currentDirectory: URL(fileURLWithPath: directory))
    }

    private func listing(_ h: SyncHarness, _ name: String) async throws -> [ConflictCopy] {
        let result = try await notes(h, ["conflicts", "--json"], in: h.folder(name))
        #expect(result.exitCode == 0, "\(result.stderr)")
        return try WireJSON.decoder().decode(ConflictsCommand.Listing.self, from: Data(result.stdout.utf8)).conflicts
    }

    /// Folders a and b with an overlapping edit of notes/todo.md synced: b holds the copy.
    private func overlappingEdit(_ h: SyncHarness) async throws -> String {
        try await h.twoFolders([("notes/todo.md", "milk\neggs\n"), ("other.md", "o\n")])
        try h.write("a", "notes/todo.md", "milk\nbread\n")
        try h.write("b", "notes/todo.md", "milk\ncheese\n")
        try await h.sync("a")
        let report = try await h.sync("b", expect: 3)
        try await h.sync("a")
        return try #require(report.conflicts.first?.copy)
    }

    @Test("conflicts lists each copy beside its note with why it was made; a copy synced from elsewhere names its device")
    func conflictsListsCopiesWithReasons() async throws {
        try await SyncHarness.with { h in
            let copy = try await overlappingEdit(h)
            #expect(try await listing(h, "b") == [ConflictCopy(copy: copy, path: "notes/todo.md", reason: .overlappingEdit, device: "b", noteExists: true)])
            #expect(try await listing(h, "a") == [ConflictCopy(copy: copy, path: "notes/todo.md", reason: nil, device: "b", noteExists: true)])
            let human = try await notes(h, ["conflicts"], in: h.folder("a") + "/notes")
            #expect(human.stdout.contains("notes/todo.md\n  \(copy)  made on b"), "\(human.stdout)")
            let none = try await h.notes(["conflicts", h.folder("a") + "/notes/../"])
            #expect(none.exitCode == 0)
        }
    }

    @Test("resolve --keep mine puts the copy's text in the note and removes the copy; the next syncs carry it everywhere")
    func resolveKeepMine() async throws {
        try await SyncHarness.with { h in
            let copy = try await overlappingEdit(h)
            let copyName = String(copy.dropFirst("notes/".count))
            let result = try await notes(h, ["resolve", copyName, "--keep", "mine", "--json"], in: h.folder("b") + "/notes")
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(h.read("b", "notes/todo.md") == "milk\ncheese\n")
            #expect(h.read("b", copy) == nil)
            #expect(try await listing(h, "b").isEmpty)
            try await h.sync("b")
            try await h.sync("a")
            let expected = ["notes/todo.md": "milk\ncheese\n", "other.md": "o\n"]
            #expect(try await h.serverNotes() == expected)
            #expect(try h.textTree("a") == expected)
        }
    }

    @Test("resolve --keep both appends the copy's text under a marker line; --keep theirs only removes the copy")
    func resolveKeepBothAndTheirs() async throws {
        try await SyncHarness.with { h in
            let copy = try await overlappingEdit(h)
            let both = try await notes(h, ["resolve", "notes/todo.md", "--keep", "both"], in: h.folder("a"))
            #expect(both.exitCode == 0, "\(both.stderr)")
            #expect(h.read("a", "notes/todo.md") == "milk\nbread\n\n<!-- notes resolve: kept both; the text of \(copy) follows -->\n\nmilk\ncheese\n")
            #expect(h.read("a", copy) == nil)
            try await h.sync("a")
            try await h.sync("b")
            #expect(try await h.serverNotes()["notes/todo.md"] == h.read("a", "notes/todo.md"))
            #expect(h.read("b", copy) == nil)

            try h.write("a", "other.md", "o from a\n")
            try h.write("b", "other.md", "o from b\n")
            try await h.sync("a")
            let second = try #require(try await h.sync("b", expect: 3).conflicts.first?.copy)
            let theirs = try await notes(h, ["resolve", second, "--keep", "theirs"], in: h.folder("b"))
            #expect(theirs.exitCode == 0, "\(theirs.stderr)")
            #expect(h.read("b", "other.md") == "o from a\n" && h.read("b", second) == nil)
            try await h.sync("b")
            let server = try await h.serverNotes()
            #expect(server["other.md"] == "o from a\n" && server[second] == nil)
        }
    }

    @Test("resolve refuses what is not a conflict copy, and a bad --keep, with exit 2, changing nothing")
    func resolveUsageErrors() async throws {
        try await SyncHarness.with { h in
            let copy = try await overlappingEdit(h)
            let notACopy = try await notes(h, ["resolve", "other.md", "--keep", "mine"], in: h.folder("b"))
            #expect(notACopy.exitCode == 2 && notACopy.stderr.contains("not a conflict copy"), "\(notACopy.stderr)")
            let badKeep = try await notes(h, ["resolve", copy, "--keep", "yours"], in: h.folder("b"))
            #expect(badKeep.exitCode == 2, "\(badKeep.stderr)")
            let outside = try await notes(h, ["resolve", "/tmp/x.md", "--keep", "mine"], in: h.folder("b"))
            #expect(outside.exitCode == 2, "\(outside.stderr)")
            #expect(h.read("b", copy) == "milk\ncheese\n" && h.read("b", "notes/todo.md") == "milk\nbread\n")
        }
    }

    @Test("two devices appending to one journal note merge both additions, the server's first, with no conflict copy")
    func appendsOnTwoDevicesMerge() async throws {
        try await SyncHarness.with { h in
            try await h.twoFolders([("journal.md", "# Journal\n- monday\n")])
            try h.write("a", "journal.md", "# Journal\n- monday\n- tuesday from a\n")
            try h.write("b", "journal.md", "# Journal\n- monday\n- tuesday from b\n- and more from b\n")
            try await h.sync("a")
            let status = try await h.status("b")
            #expect(status.merged == 1 && status.conflicts.isEmpty, "\(status)")
            let report = try await h.sync("b")
            #expect(report.merged == 1 && report.conflicts.isEmpty, "\(report)")
            try await h.sync("a")
            let merged = "# Journal\n- monday\n- tuesday from a\n- tuesday from b\n- and more from b\n"
            #expect(try await h.serverNotes() == ["journal.md": merged])
            #expect(h.read("a", "journal.md") == merged && h.read("b", "journal.md") == merged)
        }
    }
}
