import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// Members of one space working at once, through the real `notes` and `notes-server` (README,
/// "Sharing"): their edits merge or conflict as two devices of one account do, the history
/// names who wrote each revision, and a member removed while watching stops at once.
@Suite("Spaces: members working together")
struct SpaceMembersTogetherTests {
    static let password = "a shared space's long password"

    /// Ada's space Team with bob as editor, and a folder of it for each; returns (ada's, bob's).
    private func team(_ harness: LiveServer) async throws -> (ada: String, bob: String) {
        try await harness.server.addUser("bob", password: Self.password)
        try await harness.login()
        _ = try await AccountsTests.login(harness, "bob", Self.password)
        let owner = ["--username", TestAccount.username]
        #expect(try await harness.notes(["space", "create", "Team"] + owner).exitCode == 0)
        #expect(try await harness.notes(["space", "add", "Team", "bob", "--role", "editor"] + owner).exitCode == 0)
        var folders: [String] = []
        for name in [TestAccount.username, "bob"] {
            let folder = harness.home.appending("team-\(name)").path
            let clone = try await harness.notes(["clone", harness.serverURL, folder, "--space", "Team", "--username", name])
            #expect(clone.exitCode == 0, "clone as \(name): \(clone.stderr)")
            folders.append(folder)
        }
        return (folders[0], folders[1])
    }

    private func write(_ folder: String, _ name: String, _ text: String) throws {
        try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
    }

    private func read(_ folder: String, _ name: String) -> String? {
        try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)
    }

    @Test("two members' edits to different parts of a note merge, and overlapping edits leave a conflict copy, as two devices' do")
    func membersMergeAndConflictAsDevicesDo() async throws {
        try await LiveServer.with(account: .added) { harness in
            let (ada, bob) = try await team(harness)
            try write(ada, "plan.md", "one\ntwo\nthree\nfour\nfive\n")
            #expect(try await harness.notes(["sync", ada]).exitCode == 0)
            #expect(try await harness.notes(["sync", bob]).exitCode == 0)

            try write(ada, "plan.md", "ONE\ntwo\nthree\nfour\nfive\n")
            try write(bob, "plan.md", "one\ntwo\nthree\nfour\nFIVE\n")
            #expect(try await harness.notes(["sync", ada]).exitCode == 0)
            let merged = try await harness.notes(["sync", bob])
            #expect(merged.exitCode == 0, "\(merged.stderr)")
            #expect(read(bob, "plan.md") == "ONE\ntwo\nthree\nfour\nFIVE\n")
            #expect(try await harness.notes(["sync", ada]).exitCode == 0)
            #expect(read(ada, "plan.md") == "ONE\ntwo\nthree\nfour\nFIVE\n", "the merge reaches the other member")

            try write(ada, "plan.md", "ONE\ntwo\nthree\nfour\nfive, said ada\n")
            try write(bob, "plan.md", "ONE\ntwo\nthree\nfour\nfive, said bob\n")
            #expect(try await harness.notes(["sync", ada]).exitCode == 0)
            let conflicted = try await harness.notes(["sync", bob])
            #expect(conflicted.exitCode == 3, "an overlapping edit is a conflict: \(conflicted.stderr)")
            #expect(read(bob, "plan.md") == "ONE\ntwo\nthree\nfour\nfive, said ada\n", "the server's version keeps the path")
            let copies = try FileManager.default.contentsOfDirectory(atPath: bob).filter { $0.hasPrefix("plan.conflict-") }
            #expect(copies.count == 1, "\(copies)")
            #expect(copies.first.flatMap { read(bob, $0) } == "ONE\ntwo\nthree\nfour\nfive, said bob\n", "bob's edit is kept as a copy")
        }
    }

    @Test("bob deletes a note and ada restores it; the history names bob for his revisions and ada for hers")
    func historyNamesEachMember() async throws {
        try await LiveServer.with(account: .added) { harness in
            let (ada, bob) = try await team(harness)
            try write(bob, "soup.md", "Leek and potato\n")
            for day in ["monday", "tuesday", "wednesday", "thursday"] { try write(bob, day + ".md", "# \(day)\n") }
            #expect(try await harness.notes(["sync", bob]).exitCode == 0)
            try FileManager.default.removeItem(atPath: bob + "/soup.md")
            let deleted = try await harness.notes(["sync", bob])
            #expect(deleted.exitCode == 0, "\(deleted.stderr)")
            #expect(try await harness.notes(["sync", ada]).exitCode == 0)
            #expect(read(ada, "soup.md") == nil)

            let outside = harness.home.path
            let restore = try await ProcessRunner.run(BuiltProducts.client, ["restore", "soup.md", "--space", "Team", "--username", TestAccount.username],
                                                      environment: harness.environment, currentDirectory: URL(fileURLWithPath: outside))
            #expect(restore.exitCode == 0, "\(restore.stderr)")
            #expect(try await harness.notes(["sync", ada]).exitCode == 0)
            #expect(read(ada, "soup.md") == "Leek and potato\n")

            let log = try await ProcessRunner.run(BuiltProducts.client, ["log", "soup.md", "--space", "Team", "--json"],
                                                  environment: harness.environment, currentDirectory: URL(fileURLWithPath: outside))
            #expect(log.exitCode == 0, "\(log.stderr)")
            let output = try WireJSON.decoder().decode(LogCommand.Output.self, from: Data(log.stdout.utf8))
            #expect(output.revisions.map(\.change) == ["restored", "deleted", "created"])
            #expect(output.revisions.map(\.author) == [TestAccount.username, "bob", "bob"])
            let table = try await ProcessRunner.run(BuiltProducts.client, ["log", "soup.md", "--space", "Team"],
                                                    environment: harness.environment, currentDirectory: URL(fileURLWithPath: outside))
            #expect(table.stdout.split(separator: "\n").last?.contains("\tbob\t") == true, "the table names the author: \(table.stdout)")
        }
    }

    @Test("a member removed while their watcher runs: it exits 4 within one long poll, keeps every file, and their token gets 404 on the space")
    func removedMembersWatcherStops() async throws {
        try await LiveServer.with(account: .added) { harness in
            let (ada, bob) = try await team(harness)
            try write(ada, "soup.md", "Leek and potato\n")
            #expect(try await harness.notes(["sync", ada]).exitCode == 0)
            let watcher = try WatchingSync(folder: bob, environment: harness.environment)
            do {
                try #require(try await watcher.waitUntilWatching(), "the watcher never started: \(watcher.stderr)")
                #expect(read(bob, "soup.md") == "Leek and potato\n")
                try write(bob, "draft.md", "bob's own words\n")
                let uploaded = try await waitUntil(timeout: 30, every: .milliseconds(100)) {
                    (try? await harness.notes(["cat", "draft.md", "--space", "Team", "--username", TestAccount.username]))?.exitCode == 0
                }
                #expect(uploaded, "the watcher uploads bob's note: \(watcher.stderr)")

                #expect(try await harness.notes(["space", "remove", "Team", "bob", "--username", TestAccount.username]).exitCode == 0)
                let status = await watcher.waitForExit(timeout: .seconds(60))
                #expect(status == 4, "the watcher stops with exit 4: \(watcher.stderr)")
                #expect(read(bob, "soup.md") == "Leek and potato\n" && read(bob, "draft.md") == "bob's own words\n",
                        "every local file is kept")
                let refused = try await harness.notes(["ls", "--space", "ada/Team", "--username", "bob"])
                #expect(refused.exitCode != 0 && refused.stdout.isEmpty, "bob reads nothing of Team: \(refused.stdout)")
            } catch {
                await watcher.stop()
                throw error
            }
            await watcher.stop()
        }
    }
}
