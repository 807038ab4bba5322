import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// docs/architecture.md, Sync invariants 6 and 1 together: three folders edit one account in a seeded random order with
/// syncs interleaved, some of them killed after their first batch reached the server (Sync
/// invariants 7); after two quiet rounds every folder equals the server and every edit made
/// survives in a note or a conflict copy (unless the user deleted the file that held it).
///
/// A few seeds run on every CI; `NOTES_SYNC_SEEDS=200` (a count) or `=7,8,9` (a list) runs more,
/// and `NOTES_SYNC_STEPS=150` makes each run longer (36 steps by default).
@Suite("Sync convergence")
struct SyncConvergenceTests {
    static var seeds: [UInt64] {
        guard let raw = ProcessInfo.processInfo.environment["NOTES_SYNC_SEEDS"], !raw.isEmpty else { return [1, 2, 3] }
        if raw.contains(",") { return raw.split(separator: ",").compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) } }
        return Array(1...max(1, UInt64(raw) ?? 3))
    }

    @Test("three folders converge with the server and lose no edit", arguments: seeds)
    func threeFoldersConverge(seed: UInt64) async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            var world = World(seed: seed)
            let folders = ["a", "b", "c"]
            for name in folders { try await h.initFolder(name) }
            var options = SyncOptions()
            options.allowMassDelete = true  // the random walk deletes freely; the guard has its own tests
            let steps = Int(ProcessInfo.processInfo.environment["NOTES_SYNC_STEPS"] ?? "") ?? 36
            for _ in 0..<steps {
                let name = folders[world.pick(folders.count)]
                try world.act(on: name, h)
                if world.pick(3) == 0 {
                    let target = folders[world.pick(folders.count)]
                    if world.pick(5) == 0 {
                        var small = options
                        small.batchBytes = 512  // several batches, so the crash leaves some unsent
                        _ = try? await h.syncInProcess(target, options: small, wrap: { FirstBatchThenCrash(base: $0) })
                    } else {
                        _ = try await h.syncInProcess(target, options: options)
                    }
                }
            }
            for _ in 0..<2 {
                for name in folders { _ = try await h.syncInProcess(name, options: options) }
            }
            let server = try await h.serverNotes()
            for name in folders {
                #expect(try h.textTree(name) == server, "seed \(seed): folder \(name) differs from the server")
                #expect(try h.indexIntegrity(name) == "ok")
            }
            let everything = server.values.joined(separator: "\n")
            for token in world.tokens where !world.deletedTokens.contains(token) {
                #expect(everything.contains(token), "seed \(seed): the edit \(token) was lost")
            }
        }
    }

    /// The random user: creates, edits (a unique token line at a random place), renames and deletes.
    struct World {
        var rng: SeededRandom
        var counter = 0
        var tokens: [String] = []
        /// Tokens in files the user deleted: those may legitimately be gone.
        var deletedTokens = Set<String>()
        let seed: UInt64

        init(seed: UInt64) {
            self.seed = seed
            rng = SeededRandom(seed: seed)
        }

        mutating func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(max(n, 1))) }

        mutating func token() -> String {
            counter += 1
            let token = "tok-\(seed)-\(counter)"
            tokens.append(token)
            return token
        }

        mutating func act(on name: String, _ h: LiveServer) throws {
            let files = try h.tree(name).keys.sorted()
            let choice = files.isEmpty ? 0 : pick(10)
            switch choice {
            case 0, 1, 2:
                let path = ["", "x/", "y/z/"][pick(3)] + "n\(pick(8)).md"
                if h.read(name, path) == nil { try h.write(name, path, "\(token())\nbody\n") }  // a user's create never overwrites
            case 3, 4, 5, 6:
                let path = files[pick(files.count)]
                var lines = (h.read(name, path) ?? "").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                lines.insert(token(), at: pick(lines.count + 1))
                try h.write(name, path, lines.joined(separator: "\n"))
            case 7, 8:
                let path = files[pick(files.count)]
                let target = ["", "x/", "w/"][pick(3)] + "r\(pick(8)).md"
                if h.read(name, target) == nil { try h.move(name, path, target) }
            default:
                let path = files[pick(files.count)]
                for line in (h.read(name, path) ?? "").split(separator: "\n") where line.hasPrefix("tok-") {
                    deletedTokens.insert(String(line))
                }
                try h.remove(name, path)
            }
        }
    }
}
