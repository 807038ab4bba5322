import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The commands on notes address a space with `--space NAME` outside a bound folder and the
/// folder's space inside one; `notes space` restores and purges spaces in the trash. Through
/// the real `notes` and `notes-server` (README, "Sharing").
@Suite("Spaces: commands on a space's notes")
struct SpaceCommandsTests {
    /// `notes ARGS` run from `directory`.
    private func notes(_ harness: LiveServer, _ arguments: [String], in directory: String) async throws -> ProcessResult {
        try await ProcessRunner.run(BuiltProducts.client, arguments, environment: harness.environment,
                                    currentDirectory: URL(fileURLWithPath: directory))
    }

    /// Makes the space Work with `plan.md` in it, through a folder of it; returns the folder.
    private func work(_ harness: LiveServer) async throws -> String {
        try await harness.login()
        #expect(try await harness.notes(["space", "create", "Work"]).exitCode == 0)
        let folder = harness.home.appending("work").path
        #expect(try await harness.notes(["init", folder, "--space", "Work"]).exitCode == 0)
        try "# Plan\n\nShip the quarterly report\n".write(toFile: folder + "/plan.md", atomically: true, encoding: .utf8)
        try "# Ideas\n".write(toFile: folder + "/ideas.md", atomically: true, encoding: .utf8)
        #expect(try await harness.notes(["sync", folder]).exitCode == 0)
        return folder
    }

    @Test("outside a folder ls, cat, log, search, trash, restore, publish and export --remote read the space --space names")
    func spaceOptionOutsideFolder() async throws {
        try await LiveServer.with(account: .added) { harness in
            let folder = try await work(harness)
            let outside = harness.home.path
            #expect(try await notes(harness, ["ls"], in: outside).stdout.isEmpty, "without --space: the personal space")
            #expect(try await notes(harness, ["ls", "--space", "Work"], in: outside).stdout == "ideas.md\nplan.md\n")
            let cat = try await notes(harness, ["cat", "plan.md", "--space", "Work"], in: outside)
            #expect(cat.exitCode == 0 && cat.stdout == "# Plan\n\nShip the quarterly report\n", "\(cat.stderr)")
            #expect(try await notes(harness, ["cat", "plan.md"], in: outside).exitCode == 1, "the personal space has no plan.md")
            let log = try await notes(harness, ["log", "plan.md", "--space", "Work"], in: outside)
            #expect(log.exitCode == 0 && log.stdout.contains("plan.md"), "\(log.stdout) \(log.stderr)")
            let found = try await notes(harness, ["search", "quarterly", "--space", "Work"], in: outside)
            #expect(found.exitCode == 0 && found.stdout.contains("plan.md"), "\(found.stdout) \(found.stderr)")

            try FileManager.default.removeItem(atPath: folder + "/plan.md")
            #expect(try await harness.notes(["sync", folder]).exitCode == 0)
            let trash = try await notes(harness, ["trash", "--space", "Work"], in: outside)
            #expect(trash.exitCode == 0 && trash.stdout.contains("plan.md"), "\(trash.stdout) \(trash.stderr)")
            #expect(try await notes(harness, ["trash"], in: outside).stdout.isEmpty, "the personal space's trash is empty")
            let restored = try await notes(harness, ["restore", "plan.md", "--space", "Work"], in: outside)
            #expect(restored.exitCode == 0, "\(restored.stderr)")
            #expect(try await notes(harness, ["cat", "plan.md", "--space", "Work"], in: outside).stdout.contains("quarterly"))

            let published = try await notes(harness, ["publish", "plan.md", "--space", "Work"], in: outside)
            #expect(published.exitCode == 0 && published.stdout.contains("/p/"), "\(published.stdout) \(published.stderr)")
            #expect(try await notes(harness, ["published", "--space", "Work"], in: outside).stdout.contains("plan.md"))

            let site = harness.home.appending("site").path
            let export = try await notes(harness, ["export", "--html", site, "--remote", "--space", "Work"], in: outside)
            #expect(export.exitCode == 0, "\(export.stderr)")
            #expect(FileManager.default.fileExists(atPath: site + "/plan.html"), "the space's note is exported")

            let unknown = try await notes(harness, ["ls", "--space", "Nope"], in: outside)
            #expect(unknown.exitCode == 1 && unknown.stderr.contains("no space named Nope"), "\(unknown.stderr)")
            let local = try await notes(harness, ["export", "--html", site, "--space", "Work"], in: outside)
            #expect(local.exitCode == 2 && local.stderr.contains("--space goes with --remote"), "\(local.stderr)")
        }
    }

    @Test("inside a folder of a space the commands use its space, and --space is refused with a usage error")
    func folderSpaceInsideFolder() async throws {
        try await LiveServer.with(account: .added) { harness in
            let folder = try await work(harness)
            #expect(try await notes(harness, ["ls"], in: folder).stdout == "ideas.md\nplan.md\n")
            #expect(try await notes(harness, ["cat", "plan.md"], in: folder).stdout.contains("quarterly"))
            let found = try await notes(harness, ["search", "quarterly"], in: folder)
            #expect(found.exitCode == 0 && found.stdout.hasPrefix("plan.md:"), "the folder's space, paths as in the folder: \(found.stdout)")
            for arguments in [["ls", "--space", "personal"], ["cat", "plan.md", "--space", "Work"], ["search", "x", "--space", "Work"],
                              ["trash", "--space", "personal"]] {
                let refused = try await notes(harness, arguments, in: folder)
                #expect(refused.exitCode == 2 && refused.stderr.contains("--space") && refused.stderr.contains("outside a notes folder"),
                        "\(arguments): \(refused.exitCode) \(refused.stderr)")
            }
        }
    }

    @Test("space delete, restore and purge: a restored space has its notes; a purged one is gone for good")
    func deleteRestorePurge() async throws {
        try await LiveServer.with(account: .added) { harness in
            _ = try await work(harness)
            let notPurged = try await harness.notes(["space", "purge", "Work"])
            #expect(notPurged.exitCode == 1 && notPurged.stderr.contains("no space in the trash named Work"), "\(notPurged.stderr)")
            #expect(try await harness.notes(["space", "delete", "Work"]).exitCode == 0)
            #expect(try await harness.notes(["ls", "--space", "Work"]).exitCode == 1, "a space in the trash is not readable")
            let restored = try await harness.notes(["space", "restore", "Work"])
            #expect(restored.exitCode == 0 && restored.stdout.contains("Restored ada/Work"), "\(restored.stdout) \(restored.stderr)")
            #expect(try await harness.notes(["ls", "--space", "Work"]).stdout == "ideas.md\nplan.md\n")

            #expect(try await harness.notes(["space", "delete", "Work"]).exitCode == 0)
            let purged = try await harness.notes(["space", "purge", "Work"])
            #expect(purged.exitCode == 0 && purged.stdout.contains("Purged ada/Work"), "\(purged.stdout) \(purged.stderr)")
            #expect(!(try await harness.notes(["space", "list"]).stdout.contains("Work")))
            #expect(try await harness.notes(["space", "restore", "Work"]).exitCode == 1, "a purged space cannot be restored")
        }
    }
}
