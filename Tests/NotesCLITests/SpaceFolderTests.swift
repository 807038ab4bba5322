import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// A space shared by three accounts, each with its own folder of it, through the real `notes`
/// and `notes-server` (README, "Sharing"): an editor's edits reach everyone, a viewer's stay in
/// the viewer's folder until a promotion uploads them, and a removed member's folder stops with
/// exit 4 keeping every file.
@Suite("Spaces: folders of a shared space")
struct SpaceFolderTests {
    static let password = "a shared space's long password"

    @Test("an editor's edit reaches every folder; a viewer's stays local (exit 1) until a promotion uploads it; a removed member's sync exits 4 and keeps the files")
    func sharedSpaceFolders() async throws {
        try await LiveServer.with(account: .added) { harness in
            for name in ["bob", "carol", "dave"] { try await harness.server.addUser(name, password: Self.password) }
            try await harness.login()
            for name in ["bob", "carol", "dave"] { _ = try await AccountsTests.login(harness, name, Self.password) }
            let owner = ["--username", TestAccount.username]
            #expect(try await harness.notes(["space", "create", "Team"] + owner).exitCode == 0)
            #expect(try await harness.notes(["space", "add", "Team", "bob", "--role", "editor"] + owner).exitCode == 0)
            #expect(try await harness.notes(["space", "add", "Team", "carol", "--role", "viewer"] + owner).exitCode == 0)
            let members = try await harness.notes(["space", "members", "Team"] + owner)
            #expect(members.stdout.contains("bob\teditor") && members.stdout.contains("carol\tviewer"), "\(members.stdout)")

            var folders: [String: String] = [:]
            for name in [TestAccount.username, "bob", "carol"] {
                let folder = harness.home.appending("team-\(name)").path
                let clone = try await harness.notes(["clone", harness.serverURL, folder, "--space", "Team", "--username", name])
                #expect(clone.exitCode == 0, "clone as \(name): \(clone.stderr)")
                folders[name] = folder
            }
            let ada = try #require(folders[TestAccount.username]), bob = try #require(folders["bob"]), carol = try #require(folders["carol"])
            func sync(_ folder: String) async throws -> ProcessResult { try await harness.notes(["sync", folder]) }
            func text(_ folder: String, _ name: String) -> String? {
                try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            }

            try "Leek and potato\n".write(toFile: bob + "/soup.md", atomically: true, encoding: .utf8)
            #expect(try await sync(bob).exitCode == 0)
            #expect(try await sync(ada).exitCode == 0)
            #expect(try await sync(carol).exitCode == 0)
            #expect(text(ada, "soup.md") == "Leek and potato\n" && text(carol, "soup.md") == "Leek and potato\n")
            #expect(try await harness.notes(["ls", "--username", "bob"]).stdout.isEmpty, "the space's note is not in bob's personal space")
            let found = try await harness.notes(["search", "Leek", "--username", "carol"])
            #expect(found.exitCode == 0 && found.stdout.contains("ada/Team:soup.md"), "search covers every space: \(found.stdout)")
            let narrowed = try await harness.notes(["search", "Leek", "--username", "carol", "--space", "personal"])
            #expect(narrowed.exitCode == 0 && narrowed.stdout.isEmpty, "--space narrows it: \(narrowed.stdout)")
            let outsider = try await harness.notes(["search", "Leek", "--username", "dave"])
            #expect(outsider.exitCode == 0 && outsider.stdout.isEmpty, "a non-member finds nothing of the space: \(outsider.stdout)")

            try "Leek and potato, with chives\n".write(toFile: carol + "/soup.md", atomically: true, encoding: .utf8)
            let refused = try await sync(carol)
            #expect(refused.exitCode == 1)
            #expect(refused.stderr.contains("viewer"), "\(refused.stderr)")
            #expect(text(carol, "soup.md") == "Leek and potato, with chives\n", "the viewer's edit is kept")
            #expect(try await sync(ada).exitCode == 0)
            #expect(text(ada, "soup.md") == "Leek and potato\n", "the viewer's edit was not uploaded")

            #expect(try await harness.notes(["space", "add", "Team", "carol", "--role", "editor"] + owner).exitCode == 0)
            let promoted = try await sync(carol)
            #expect(promoted.exitCode == 0, "\(promoted.stderr)")
            #expect(try await sync(ada).exitCode == 0)
            #expect(text(ada, "soup.md") == "Leek and potato, with chives\n", "the promotion uploaded the kept edit")

            #expect(try await harness.notes(["space", "remove", "Team", "bob"] + owner).exitCode == 0)
            let removed = try await sync(bob)
            #expect(removed.exitCode == 4, "\(removed.stderr)")
            #expect(removed.stderr.contains("kept"), "\(removed.stderr)")
            #expect(text(bob, "soup.md") == "Leek and potato\n", "the removed member keeps every file")
            #expect(try await harness.notes(["space", "leave", "Team", "--username", "carol"]).exitCode == 0)
            #expect(try await harness.notes(["sync", carol]).exitCode == 4, "a member who left is refused like a removed one")
        }
    }

    @Test("a folder of a space refuses the personal space's feed, and a space name that is not theirs is refused before binding")
    func folderIsBoundToItsSpace() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let missing = try await harness.notes(["clone", harness.serverURL, harness.home.appending("none").path, "--space", "Nope"])
            #expect(missing.exitCode == 1 && missing.stderr.contains("no space named Nope"), "\(missing.stderr)")
            #expect(!FileManager.default.fileExists(atPath: harness.home.appending("none").appendingPathComponent(".notes").path))
            #expect(try await harness.notes(["space", "create", "Work"]).exitCode == 0)
            let folder = harness.home.appending("work").path
            #expect(try await harness.notes(["init", folder, "--space", "Work"]).exitCode == 0)
            let config = try String(contentsOfFile: folder + "/.notes/config.json", encoding: .utf8)
            #expect(config.contains("\"space_name\"") && config.contains("ada/Work"), "\(config)")
            let list = try await harness.notes(["space", "list"])
            #expect(list.stdout.contains("ada/personal\towner") && list.stdout.contains("ada/Work\towner"), "\(list.stdout)")
            #expect(try await harness.notes(["space", "delete", "Work"]).exitCode == 0)
            #expect(try await harness.notes(["space", "list"]).stdout.contains("ada/Work\towner\tin the trash"))
            #expect(try await harness.notes(["sync", folder]).exitCode == 4, "a deleted space's folder stops")
        }
    }
}
