import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// docs/architecture.md, Sync invariants 6 and 12 together: the convergence walk of `SyncConvergenceTests` over folders of
/// two accounts on one server, with the default account switched by `notes login` at random
/// between syncs. Every folder still converges with its own account's notes, and no edit
/// crosses to the other account.
@Suite("Sync convergence across account switches")
struct SyncAccountConvergenceTests {
    @Test("folders of two accounts converge with their own account while `notes login` switches the default", arguments: [UInt64(1), 2])
    func foldersFollowTheirAccount(seed: UInt64) async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await SyncAccountTests.signInBob(h)
            let owners = ["a": "ada", "b": "ada", "c": SyncAccountTests.bob]
            for (name, owner) in owners.sorted(by: { $0.key < $1.key }) {
                let bind = try await h.notes(["init", h.folder(name), "--server", h.serverURL, "--device", name, "--username", owner])
                #expect(bind.exitCode == 0, "\(bind.stderr)")
            }
            var worlds = ["ada": SyncConvergenceTests.World(seed: seed), "bob": SyncConvergenceTests.World(seed: seed + 1000)]
            var options = SyncOptions()
            options.allowMassDelete = true  // the random walk deletes freely; the guard has its own tests
            var rng = SeededRandom(seed: seed &+ 7)
            let folders = owners.keys.sorted()
            for _ in 0..<30 {
                let name = folders[Int(rng.next() % 3)]
                try worlds[owners[name]!]!.act(on: name, h)
                switch rng.next() % 9 {
                case 0: try await h.login()
                case 1: try await SyncAccountTests.loginBob(h)
                case 2, 3, 4: _ = try await h.syncInProcess(folders[Int(rng.next() % 3)], options: options)
                default: break
                }
            }
            for _ in 0..<2 {
                for name in folders { _ = try await h.syncInProcess(name, options: options) }
            }
            for account in ["ada", "bob"] {
                let server = try await Self.serverNotes(h, of: account)
                for name in folders where owners[name] == account {
                    #expect(try h.textTree(name) == server, "seed \(seed): folder \(name) differs from \(account)'s notes")
                }
                let everything = server.values.joined(separator: "\n")
                let world = worlds[account]!
                for token in world.tokens where !world.deletedTokens.contains(token) {
                    #expect(everything.contains(token), "seed \(seed): \(account)'s edit \(token) was lost")
                }
                let other = worlds[account == "ada" ? "bob" : "ada"]!
                #expect(!other.tokens.contains { everything.contains($0) }, "seed \(seed): an edit crossed into \(account)'s notes")
            }
        }
    }

    /// `account`'s live notes, path → content, through the real API.
    static func serverNotes(_ h: LiveServer, of account: String) async throws -> [String: String] {
        let api = try ClientFactory(environment: h.environment).client(server: h.serverURL, username: account)
        var result: [String: String] = [:]
        var cursor: String?
        while true {
            let page = try await api.json(ChangesPage.self, APIRequest("GET", "/v1/changes", query: [("limit", "1000"), ("include", "content")]
                                                                       + (cursor.map { [("since", $0)] } ?? [])))
            for note in page.changes where !note.deleted { result[note.path] = note.content ?? "" }
            guard page.hasMore else { return result }
            cursor = page.cursor
        }
    }
}
