import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// docs/architecture.md, Sync invariants 13 over many states: two folders edit one account in a seeded random order
/// (creates, edits anywhere including appends, renames, deletes, names that differ only in case)
/// and sometimes sync, sometimes with the sync killed after its first batch; before every
/// complete sync, `status` (the same dry run, in-process) must predict it field by field.
///
/// A few seeds run on every CI; `NOTES_STATUS_SEEDS=50` (a count) or `=7,8` (a list) runs more,
/// and `NOTES_STATUS_STEPS=60` makes each run longer (18 steps by default).
@Suite("Sync status predicts sync")
struct SyncStatusPredictionTests {
    static var seeds: [UInt64] {
        guard let raw = ProcessInfo.processInfo.environment["NOTES_STATUS_SEEDS"], !raw.isEmpty else { return [1, 2] }
        if raw.contains(",") { return raw.split(separator: ",").compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) } }
        return Array(1...max(1, UInt64(raw) ?? 2))
    }

    @Test("status predicts the next sync in random states, interrupted syncs included", arguments: seeds)
    func statusPredictsTheNextSync(seed: UInt64) async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            var world = SyncConvergenceTests.World(seed: seed)
            let folders = ["a", "b"]
            for name in folders { try await h.initFolder(name) }
            var options = SyncOptions()
            options.allowMassDelete = true  // the walk deletes freely; the guard's prediction has its own test
            options.batchBytes = 512  // several batches, so a crash after the first leaves work behind
            var dry = options
            dry.dryRun = true
            let steps = Int(ProcessInfo.processInfo.environment["NOTES_STATUS_STEPS"] ?? "") ?? 18
            for step in 0..<steps {
                let name = folders[world.pick(folders.count)]
                if world.pick(8) == 0 {
                    // A name that differs only in case from one the other folder may have.
                    let path = "N\(world.pick(8)).md"
                    if h.read(name, path) == nil { try h.write(name, path, "\(world.token())\n") }
                } else {
                    try world.act(on: name, h)
                }
                guard world.pick(2) == 0 else { continue }
                let target = folders[world.pick(folders.count)]
                if world.pick(4) == 0 {
                    // Killed after its first batch reached the server: the next status must see what is left.
                    _ = try? await h.syncInProcess(target, options: options, wrap: { FirstBatchThenCrash(base: $0) })
                    continue
                }
                let predicted = try await h.syncInProcess(target, options: dry)
                let done = try await h.syncInProcess(target, options: options)
                h.expectSameOutcome(predicted: predicted, done: done, "seed \(seed) step \(step) folder \(target)")
            }
            for name in folders + folders {
                let predicted = try await h.syncInProcess(name, options: dry)
                let done = try await h.syncInProcess(name, options: options)
                h.expectSameOutcome(predicted: predicted, done: done, "seed \(seed) final sync of \(name)")
            }
            let server = try await h.serverNotes()
            for name in folders { #expect(try h.textTree(name) == server, "seed \(seed): \(name) differs from the server") }
        }
    }
}
