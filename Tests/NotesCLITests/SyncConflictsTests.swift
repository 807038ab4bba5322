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
    private func notes(_ h: LiveServer, _ arguments: [String], in directory: String) async throws -> ProcessResult {
        try await ProcessRunner.run(BuiltProducts.client, arguments, environment: h.environment,
                                    currentDirectory: URL(fileURLWithPath: directory))
    }

    private func listing(_ h: LiveServer, _ name: String) async throws -> [ConflictCopy] {
        let result = try await notes(h, ["conflicts", "--json"], in: h.folder(name))
        #expect(result.exitCode == 0, "\(result.stderr)")
        return try WireJSON.decoder().decode(ConflictsCommand.Listing.self, from: Data(result.stdout.utf8)).conflicts
    }

    /// Folders a and b with an overlapping edit of notes/todo.md synced: b holds the copy.
    private func overlappingEdit(_ h: LiveServer) async throws -> String {
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
        try await LiveServer.with(account: .loggedIn) { h in
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
        try await LiveServer.with(account: .loggedIn) { h in
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
        try await LiveServer.with(account: .loggedIn) { h in
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
        try await LiveServer.with(account: .loggedIn) { h in
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
        try await LiveServer.with(account: .loggedIn) { h in
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

    @Test("a copy whose note's name sync refuses is offered a rename: conflicts suggests it, --keep mine refuses and recreates nothing, --rename-to keeps the text under a name that syncs, and no new copy follows")
    func copyOfAnUnsyncableNameIsOfferedARename() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("seed.md", "s\n")])
            // A copy made of `back\slash.md` under a repaired name, as this folder's index recorded it.
            let copy = "back-slash.conflict-a-20261207-102950.md"
            try h.write("a", copy, "kept text\n")
            let index = try SyncIndex(path: h.folder("a") + "/.notes/index.sqlite")
            try index.recordConflict(ConflictRecord(copy: copy, path: "back\\slash.md", reason: .unsyncableName, madeAt: 0))
            try index.close()
            try await h.sync("a")

            let listed = try #require(try await listing(h, "a").first)
            #expect(listed.path == "back\\slash.md" && listed.renameTo == "back-slash.md", "\(listed)")
            let human = try await notes(h, ["conflicts"], in: h.folder("a"))
            #expect(human.stdout.contains("notes resolve \(copy) --rename-to back-slash.md"), "\(human.stdout)")
            #expect(!human.stdout.contains("--keep mine"), "never suggests bringing the refused name back: \(human.stdout)")

            for keep in ["mine", "both"] {
                let refused = try await notes(h, ["resolve", copy, "--keep", keep], in: h.folder("a"))
                #expect(refused.exitCode == 2, "\(refused.stderr)")
                #expect(refused.stderr.contains("--rename-to back-slash.md"), "\(refused.stderr)")
                #expect(h.read("a", "back\\slash.md") == nil && h.read("a", copy) == "kept text\n")
            }
            let taken = try await notes(h, ["resolve", copy, "--rename-to", "seed.md"], in: h.folder("a"))
            #expect(taken.exitCode == 2 && h.read("a", "seed.md") == "s\n", "\(taken.stderr)")
            let unsyncable = try await notes(h, ["resolve", copy, "--rename-to", "other\\name.md"], in: h.folder("a"))
            #expect(unsyncable.exitCode == 2 && h.read("a", "other\\name.md") == nil, "\(unsyncable.stderr)")

            let renamed = try await notes(h, ["resolve", copy, "--rename-to", "back-slash.md"], in: h.folder("a"))
            #expect(renamed.exitCode == 0, "\(renamed.stderr)")
            #expect(h.read("a", "back-slash.md") == "kept text\n" && h.read("a", copy) == nil)
            let report = try await h.sync("a")
            #expect(report.conflicts.isEmpty && report.skipped.isEmpty, "\(report)")
            try await h.sync("a")
            #expect(try await h.serverNotes() == ["seed.md": "s\n", "back-slash.md": "kept text\n"])
            #expect(try await listing(h, "a").isEmpty)
        }
    }

    @Test("a copy of a name that syncs is settled back into that name, zero-width space and all")
    func copyOfAScriptNameSettlesBackIntoIt() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("seed.md", "s\n")])
            let khmer = "\u{179A}\u{17B6}\u{1794}\u{17CB}\u{200B}\u{1796}\u{17B6}\u{1780}\u{17D2}\u{1799}.md"
            let copy = "\u{179A}\u{17B6}\u{1794}\u{17CB}-\u{1796}\u{17B6}\u{1780}\u{17D2}\u{1799}.conflict-a-20261207-102950.md"
            try h.write("a", copy, "kept text\n")
            let index = try SyncIndex(path: h.folder("a") + "/.notes/index.sqlite")
            try index.recordConflict(ConflictRecord(copy: copy, path: khmer, reason: .unsyncableName, madeAt: 0))
            try index.close()
            try await h.sync("a")
            #expect(try await listing(h, "a").first?.renameTo == nil)
            let settled = try await notes(h, ["resolve", copy, "--keep", "mine"], in: h.folder("a"))
            #expect(settled.exitCode == 0, "\(settled.stderr)")
            let report = try await h.sync("a")
            #expect(report.conflicts.isEmpty && report.skipped.isEmpty, "\(report)")
            #expect(Set(try await h.serverNotes().keys.map { Array($0.utf8) }) == [Array("seed.md".utf8), Array(khmer.utf8)])
        }
    }
}
