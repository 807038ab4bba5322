import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// `notes log`, `cat --rev`, `restore`, `trash` and `purge` end to end: the real binaries, a
/// real server and real synced folders.
@Suite("History commands")
struct HistoryCommandsTests {
    @Test func logFollowsANoteAcrossARenameAndADeleteByItsId() async throws {
        try await LiveServer.with(account: .loggedIn) { sync in
            try await sync.initFolder("A")
            try sync.write("A", "sub/plan.md", "v1\n")
            try await sync.sync("A")
            try sync.write("A", "sub/plan.md", "version two\n")
            try await sync.sync("A")
            try sync.move("A", "sub/plan.md", "sub/renamed.md")
            try await sync.sync("A")

            // Typed in A/sub, the path is relative to it.
            let log = try await sync.history(in: sync.folder("A") + "/sub", ["log", "renamed.md", "--json"])
            #expect(log.exitCode == 0, "\(log.stderr)")
            let output = try WireJSON.decoder().decode(LogCommand.Output.self, from: Data(log.stdout.utf8))
            #expect(output.path == "sub/renamed.md" && !output.deleted)
            #expect(output.revisions.map(\.change) == ["renamed", "edited", "created"])
            #expect(output.revisions.map(\.path) == ["sub/renamed.md", "sub/plan.md", "sub/plan.md"])
            #expect(output.revisions.first?.renamedFrom == "sub/plan.md")
            #expect(output.revisions.map(\.size) == [12, 12, 3])
            let revs = output.revisions.map(\.rev)
            #expect(revs == revs.sorted(by: >))

            try sync.remove("A", "sub/renamed.md")
            try await sync.sync("A", ["--allow-mass-delete"])  // the only note goes
            // Outside any folder the path is the stored one; a deleted note still has its log.
            let deleted = try await sync.history(in: sync.work.path, ["log", "sub/renamed.md"])
            #expect(deleted.exitCode == 0, "\(deleted.stderr)")
            let lines = deleted.stdout.split(separator: "\n")
            #expect(lines.count == 4)
            #expect(lines.first?.contains("\tdeleted\tsub/renamed.md") == true, "\(deleted.stdout)")
            #expect(lines.dropFirst().first?.contains("renamed\tsub/renamed.md  (was sub/plan.md)") == true, "\(deleted.stdout)")

            let missing = try await sync.history(in: sync.work.path, ["log", "nothing.md"])
            #expect(missing.exitCode == 1)
            #expect(missing.stderr.contains("no note at nothing.md"))
            let outside = try await sync.history(in: sync.folder("A"), ["log", "../elsewhere.md"])
            #expect(outside.exitCode == 2)
        }
    }

    @Test func catRevPrintsAnOldVersionAlsoOfADeletedNote() async throws {
        try await LiveServer.with(account: .loggedIn) { sync in
            try await sync.initFolder("A")
            try sync.write("A", "n.md", "first text\n")
            try await sync.sync("A")
            try sync.write("A", "n.md", "second, longer text\n")
            try await sync.sync("A")
            let revs = try await sync.revs(of: "n.md")
            let folder = sync.folder("A")

            let old = try await sync.history(in: folder, ["cat", "n.md", "--rev", String(revs[1])])
            #expect(old.exitCode == 0, "\(old.stderr)")
            #expect(old.stdout == "first text\n")
            let json = try await sync.history(in: folder, ["cat", "n.md", "--rev", String(revs[1]), "--json"])
            #expect(try WireJSON.decoder().decode(RevisionResource.self, from: Data(json.stdout.utf8)).content == "first text\n")

            try sync.remove("A", "n.md")
            try await sync.sync("A", ["--allow-mass-delete"])  // the only note goes
            let afterDelete = try await sync.history(in: folder, ["cat", "n.md", "--rev", String(revs[0])])
            #expect(afterDelete.stdout == "second, longer text\n", "\(afterDelete.stderr)")
            let deletion = try await sync.revs(of: "n.md")[0]
            #expect(try await sync.history(in: folder, ["cat", "n.md", "--rev", String(deletion)]).exitCode == 1)
            let unknown = try await sync.history(in: folder, ["cat", "n.md", "--rev", "99999"])
            #expect(unknown.exitCode == 1)
            #expect(unknown.stderr.contains("has no revision 99999"))
            #expect(try await sync.history(in: folder, ["cat", "n.md", "other.md", "--rev", "1"]).exitCode == 2)
        }
    }

    @Test func restoreBringsBackADeletedNoteAndTheNextSyncBringsItToEveryFolder() async throws {
        try await LiveServer.with(account: .loggedIn) { sync in
            try await sync.initFolder("A")
            try await sync.initFolder("B")
            try sync.write("A", "notes/keep.md", "precious\n")
            try await sync.sync("A")
            try await sync.sync("B")
            try sync.remove("A", "notes/keep.md")
            try await sync.sync("A", ["--allow-mass-delete"])  // the only note goes
            try await sync.sync("B", ["--allow-mass-delete"])
            #expect(sync.read("B", "notes/keep.md") == nil)

            let restore = try await sync.history(in: sync.folder("A") + "/notes", ["restore", "keep.md", "--json"])
            #expect(restore.exitCode == 0, "\(restore.stderr)")
            let output = try WireJSON.decoder().decode(RestoreCommand.Output.self, from: Data(restore.stdout.utf8))
            #expect(output.path == "notes/keep.md")
            try await sync.sync("A")
            try await sync.sync("B")
            #expect(sync.read("A", "notes/keep.md") == "precious\n")
            #expect(sync.read("B", "notes/keep.md") == "precious\n")
            let log = try await sync.history(in: sync.folder("B"), ["log", "notes/keep.md", "--json"])
            let changes = try WireJSON.decoder().decode(LogCommand.Output.self, from: Data(log.stdout.utf8)).revisions.map(\.change)
            #expect(changes == ["restored", "deleted", "created"])
            let again = try await sync.history(in: sync.folder("A"), ["restore", "notes/keep.md"])
            #expect(again.exitCode == 2, "a live note needs --rev")
            #expect(again.stderr.contains("--rev"))
        }
    }

    @Test func restoreOfAnOldVersionIsANewRevisionThatSyncs() async throws {
        try await LiveServer.with(account: .loggedIn) { sync in
            try await sync.initFolder("A")
            try sync.write("A", "doc.md", "good version\n")
            try await sync.sync("A")
            try sync.write("A", "doc.md", "a bad edit that went too far\n")
            try await sync.sync("A")
            let revs = try await sync.revs(of: "doc.md")

            let restore = try await sync.history(in: sync.folder("A"), ["restore", "doc.md", "--rev", String(revs[1])])
            #expect(restore.exitCode == 0, "\(restore.stderr)")
            #expect(restore.stdout.contains("restored doc.md from revision \(revs[1])"))
            let after = try await sync.revs(of: "doc.md")
            #expect(after.count == 3 && after[0] > revs[0], "a new revision; the bad edit stays in the history")
            try await sync.sync("A")
            #expect(sync.read("A", "doc.md") == "good version\n")
        }
    }

    @Test func restoreOntoATakenPathRefusesAndToPutsItElsewhere() async throws {
        try await LiveServer.with(account: .loggedIn) { sync in
            try await sync.initFolder("A")
            try sync.write("A", "x.md", "the old note\n")
            try await sync.sync("A")
            try sync.remove("A", "x.md")
            try await sync.sync("A", ["--allow-mass-delete"])  // the only note goes
            try sync.write("A", "x.md", "a new note at the same path\n")
            try await sync.sync("A")
            let folder = sync.folder("A")

            let refused = try await sync.history(in: folder, ["restore", "x.md"])
            #expect(refused.exitCode == 1)
            #expect(refused.stderr.contains("x.md is taken by another note") && refused.stderr.contains("--to"), "\(refused.stderr)")
            #expect(try await sync.serverNotes() == ["x.md": "a new note at the same path\n"])

            let moved = try await sync.history(in: folder, ["restore", "x.md", "--to", "x-old.md"])
            #expect(moved.exitCode == 0, "\(moved.stderr)")
            try await sync.sync("A")
            #expect(sync.read("A", "x-old.md") == "the old note\n")
            #expect(sync.read("A", "x.md") == "a new note at the same path\n")
        }
    }

    @Test func trashListsDeletedNotesWithWhenTheyWillBePurged() async throws {
        try await LiveServer.with(["--tombstone-ttl", "86400"], account: .loggedIn) { sync in
            try await sync.initFolder("A")
            try sync.write("A", "a.md", "aaa\n")
            try sync.write("A", "b.md", "bbbbbb\n")
            try sync.write("A", "c.md", "stays\n")
            try await sync.sync("A")
            try sync.remove("A", "a.md")
            try sync.remove("A", "b.md")
            try await sync.sync("A")

            let json = try await sync.history(in: sync.work.path, ["trash", "--json"])
            #expect(json.exitCode == 0, "\(json.stderr)")
            let entries = try WireJSON.decoder().decode(TrashCommand.Output.self, from: Data(json.stdout.utf8)).notes
            #expect(Set(entries.map(\.path)) == ["a.md", "b.md"])
            for entry in entries {
                let deleted = try #require(ISO8601DateFormatter.wire.date(from: entry.deletedAt))
                let purged = try #require(ISO8601DateFormatter.wire.date(from: entry.purgeAt))
                #expect(purged.timeIntervalSince(deleted) == 86400)
            }
            #expect(entries.first { $0.path == "b.md" }?.size == 7)

            let plain = try await sync.history(in: sync.work.path, ["trash"])
            let line = try #require(plain.stdout.split(separator: "\n").first { $0.contains("\ta.md\t") })
            let entry = try #require(entries.first { $0.path == "a.md" })
            #expect(line == "\(HistoryTarget.shortTime(entry.deletedAt))\t\(HistoryTarget.shortTime(entry.purgeAt))\t4\ta.md\tnote")
        }
    }

    @Test func trashListsDeletedAttachmentsAndNotesEachWithItsKind() async throws {
        try await LiveServer.with(account: .loggedIn) { sync in
            try await sync.initFolder("A")
            try sync.write("A", "img/chart.png", "not really a png\n")
            try sync.write("A", "Guide.markdown", "# Guide\n")
            try sync.write("A", "stays.md", "stays\n")
            try await sync.sync("A")
            try sync.remove("A", "img/chart.png")
            try sync.remove("A", "Guide.markdown")
            try await sync.sync("A")

            let json = try await sync.history(in: sync.work.path, ["trash", "--json"])
            #expect(json.exitCode == 0, "\(json.stderr)")
            // Said on the wire, not only inferred from the path when decoding.
            let raw = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: [[String: Any]]])
            #expect(Set(raw["notes"]?.compactMap { $0["kind"] as? String } ?? []) == ["attachment", "note"])
            let entries = try WireJSON.decoder().decode(TrashCommand.Output.self, from: Data(json.stdout.utf8)).notes
            #expect(Dictionary(uniqueKeysWithValues: entries.map { ($0.path, $0.kind) }) == ["img/chart.png": .attachment, "Guide.markdown": .note])

            // Without a terminal: tab-separated, KIND last, so the first four columns stay what they were.
            let plain = try await sync.history(in: sync.work.path, ["trash"])
            #expect(plain.exitCode == 0, "\(plain.stderr)")
            let rows = plain.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
            #expect(rows.count == 2 && rows.allSatisfy { $0.count == 5 }, "\(plain.stdout)")
            #expect(Set(rows.map { $0[3] + " " + $0[4] }) == ["img/chart.png attachment", "Guide.markdown note"])
            // A deleted attachment found in the trash can be brought back by its path.
            let restore = try await sync.history(in: sync.folder("A"), ["restore", "img/chart.png"])
            #expect(restore.exitCode == 0, "\(restore.stderr)")
        }
    }

    @Test func purgeRemovesEveryRevisionFromTheServerAndNeedsYesWithoutATerminal() async throws {
        try await LiveServer.with(account: .loggedIn) { sync in
            try await sync.initFolder("A")
            try await sync.initFolder("B")
            try sync.write("A", "leak.md", "token: zqxleaked9931\n")
            try await sync.sync("A")
            try sync.write("A", "leak.md", "token: zqxleaked9931 (rotated)\n")
            try await sync.sync("A")
            try await sync.sync("B")
            let id = try #require(try await sync.serverResources()["leak.md"]?.id)

            let unconfirmed = try await sync.history(in: sync.folder("A"), ["purge", "leak.md"])
            #expect(unconfirmed.exitCode == 2)
            #expect(unconfirmed.stderr.contains("--yes"))
            #expect(try await sync.revs(of: "leak.md").count == 2, "nothing was purged")

            let purge = try await sync.history(in: sync.folder("A"), ["purge", "leak.md", "--yes", "--json"])
            #expect(purge.exitCode == 0, "\(purge.stderr)")
            #expect(try WireJSON.decoder().decode(PurgeResult.self, from: Data(purge.stdout.utf8)).purgedRevisions == 3)
            await #expect(throws: ClientError.self) { try await sync.apiClient().revisions(of: id) }
            let search = try await sync.notes(["search", "zqxleaked9931", "--server", sync.serverURL])
            #expect(search.stdout.isEmpty, "\(search.stdout)")
            #expect(try await sync.history(in: sync.work.path, ["log", "leak.md"]).exitCode == 1)
            #expect(try await sync.history(in: sync.work.path, ["trash", "--json"]).stdout.contains("leak.md") == false)
            try await sync.sync("A", ["--allow-mass-delete"])  // the only note goes
            try await sync.sync("B", ["--allow-mass-delete"])
            #expect(sync.read("A", "leak.md") == nil && sync.read("B", "leak.md") == nil, "every folder deletes it")
        }
    }

    @Test(.enabled(if: TerminalSession.pythonAvailable))
    func purgeAsksOnATerminalAndDoesNothingUnlessConfirmed() async throws {
        try await LiveServer.with(account: .loggedIn) { sync in
            try await sync.createNotes([("secret.md", "pasted by mistake")])
            let declined = try await TerminalSession.run([("[y/N]", "n\r")], BuiltProducts.client,
                                                         ["purge", "secret.md", "--server", sync.serverURL],
                                                         environment: sync.environment)
            #expect(declined.status == 1, "\(declined.output)")
            #expect(declined.output.contains("Purge secret.md and its 1 revision from the server for good?"))
            #expect(try await sync.revs(of: "secret.md").count == 1)
            let confirmed = try await TerminalSession.run([("[y/N]", "y\r")], BuiltProducts.client,
                                                          ["purge", "secret.md", "--server", sync.serverURL],
                                                          environment: sync.environment)
            #expect(confirmed.status == 0, "\(confirmed.output)")
            #expect(confirmed.output.contains("purged secret.md: 2 revisions removed"))
        }
    }

    @Test func anotherUserCanNeitherSeeNorRestoreNorPurgeANote() async throws {
        try await LiveServer.with(account: .loggedIn) { sync in
            try await sync.createNotes([("private.md", "alice only")])
            let note = try #require(try await sync.serverResources()["private.md"])
            try await sync.server.addUser("bob", password: TestAccount.password)
            let bobHome = try TemporaryDirectory("notes-bob")
            defer { bobHome.remove() }
            let bob = ["HOME": bobHome.path, "XDG_CONFIG_HOME": bobHome.appending("config").path]
            let login = try await ProcessRunner.run(BuiltProducts.client, ["login", "--server", sync.serverURL, "--username", "bob", "--password-stdin"],
                                                    environment: bob, stdin: TestAccount.password + "\n")
            #expect(login.exitCode == 0, "\(login.stderr)")
            for arguments in [["log", "private.md"], ["cat", "private.md", "--rev", String(note.rev)],
                              ["restore", "private.md", "--rev", String(note.rev)], ["purge", "private.md", "--yes"]] {
                let result = try await ProcessRunner.run(BuiltProducts.client, arguments, environment: bob)
                #expect(result.exitCode == 1, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("private.md"), "\(arguments): \(result.stderr)")
            }
            let trash = try await ProcessRunner.run(BuiltProducts.client, ["trash", "--json"], environment: bob)
            #expect(try WireJSON.decoder().decode(TrashCommand.Output.self, from: Data(trash.stdout.utf8)).notes.isEmpty)
            #expect(try await sync.revs(of: "private.md") == [note.rev])
        }
    }

    @Test func historyCommandsHaveHelpAndTheDocumentedExitCodes() async throws {
        let home = try TemporaryDirectory("notes-home")
        defer { home.remove() }
        let environment = ["HOME": home.path, "XDG_CONFIG_HOME": home.appending("config").path]
        let unreachableServer = environment.merging([
            "NOTES_SERVER": "http://127.0.0.1:9", "NOTES_TOKEN": "npt_" + String(repeating: "a", count: 43),
        ]) { $1 }
        let commands = [["log", "x.md"], ["cat", "x.md", "--rev", "1"], ["restore", "x.md"], ["trash"], ["purge", "x.md", "--yes"]]
        // Each unreachable run waits out the client's retries; run them side by side.
        try await withThrowingTaskGroup(of: (String, ProcessResult).self) { group in
            for arguments in commands {
                group.addTask { (arguments[0], try await ProcessRunner.run(BuiltProducts.client, arguments, environment: unreachableServer)) }
            }
            for try await (command, unreachable) in group {
                #expect(unreachable.exitCode == 5, "\(command): \(unreachable.stderr)")
            }
        }
        for arguments in commands {
            let command = arguments[0]
            let help = try await ProcessRunner.run(BuiltProducts.client, [command, "--help"], environment: environment)
            #expect(help.exitCode == 0 && help.stdout.contains("Usage: notes \(command)"), "\(command)")
            let signedOut = try await ProcessRunner.run(BuiltProducts.client, arguments, environment: environment)
            #expect(signedOut.exitCode == 4, "\(command): \(signedOut.stderr)")
        }
        for arguments in [["log"], ["restore", "x.md", "--rev", "0"], ["cat", "x.md", "--json"], ["purge", "/abs.md", "--yes"], ["trash", "extra"]] {
            let usage = try await ProcessRunner.run(BuiltProducts.client, arguments, environment: environment)
            #expect(usage.exitCode == 2, "\(arguments): \(usage.stderr)")
        }
    }
}

extension LiveServer {
    /// `notes ARGS` run in `directory`, as a user typing there.
    func history(in directory: String, _ arguments: [String], stdin: String? = nil) async throws -> ProcessResult {
        try await ProcessRunner.run(BuiltProducts.client, arguments, environment: environment, stdin: stdin,
                                    currentDirectory: URL(fileURLWithPath: directory))
    }

    /// The revisions of the note at `path` (live, else the most recently deleted), newest first.
    func revs(of path: String) async throws -> [Int64] {
        let log = try await history(in: work.path, ["log", path, "--json"])
        return try WireJSON.decoder().decode(LogCommand.Output.self, from: Data(log.stdout.utf8)).revisions.map(\.rev)
    }
}

extension ISO8601DateFormatter {
    /// Parses the wire's `2026-11-29T17:30:00.123Z`.
    static var wire: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
