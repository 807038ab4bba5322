import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// A folder belongs to one account (issue 9, repro 1): signing in as someone else on the same
/// server never lets their notes into the folder, nor deletes the folder's own.
@Suite("Sync: a folder is bound to its account")
struct SyncAccountTests {
    static let bob = "bob"
    static let bobPassword = "bob's own long password"

    /// Adds the user bob on the harness's server and signs the real `notes` in as him.
    static func signInBob(_ h: SyncHarness) async throws {
        try await h.client.server.addUser(bob, password: bobPassword)
        try await loginBob(h)
    }

    static func loginBob(_ h: SyncHarness, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let login = try await h.client.notes(["login", "--server", h.serverURL, "--username", bob, "--password-stdin"],
                                      stdin: bobPassword + "\n", sourceLocation: sourceLocation)
        #expect(login.exitCode == 0, "login as bob failed: \(login.stderr)", sourceLocation: sourceLocation)
    }

    /// A folder `c` bound and synced as ada with three notes, then bob signed in with one note of his own.
    static func aliceFolderThenBob(_ h: SyncHarness) async throws -> [String: Data] {
        try await h.initFolder("c")
        for index in 1...3 { try h.write("c", "ada-\(index).md", "ada's note \(index)\n") }
        try await h.sync("c")
        try await signInBob(h)
        try await h.client.createNotes([("bob.md", "bob's note\n")])
        return try h.tree("c")
    }

    @Test("repro 1: after `notes login` as bob, syncing ada's folder still syncs as ada: bob's note never arrives, nothing is deleted")
    func loginAsAnotherUserLeavesTheFolderAlone() async throws {
        try await SyncHarness.with { h in
            let before = try await Self.aliceFolderThenBob(h)
            let result = try await h.notes(["sync", h.folder("c"), "--json"])
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(try h.tree("c") == before)
            #expect(h.read("c", "bob.md") == nil)
            #expect(!result.stderr.contains("full resync"))
        }
    }
}
