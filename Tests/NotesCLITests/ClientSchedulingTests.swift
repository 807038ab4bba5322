import Foundation
import NotesTestSupport
import Testing

/// The `notes` binary runs as a batch job (`BatchScheduling`): every thread it has, including
/// those libdispatch and URLSession start long after `main`, inherits `SCHED_BATCH`.
@Suite("Client: scheduled as a batch job", .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/task"), "Linux only"))
struct ClientSchedulingTests {
    /// Linux's `SCHED_BATCH` and default (`SCHED_OTHER`) policies.
    static let batch = 3
    static let normal = 0

    @Test("every thread of a notes process that has synced runs under SCHED_BATCH, so its hand-offs do not preempt each other")
    func everyThreadRunsAsBatchJob() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "note.md", "synced by the watcher\n")
            let watcher = try WatchingSync(folder: h.folder("a"), environment: h.environment)
            let watching = try await watcher.waitUntilWatching()
            // After a sync that sent a note: URLSession's and libdispatch's threads exist by now.
            let synced = try await waitUntil(timeout: 60, every: .milliseconds(50)) { try await h.serverNotes()["note.md"] != nil }
            let policies = Self.threadPolicies(of: watcher.pid)
            await watcher.stop()
            #expect(watching && synced, "\(watcher.stderr)")
            #expect(policies.count > 2, "the watcher's threads were read: \(policies)")
            #expect(!policies.isEmpty && policies.values.allSatisfy { $0 == Self.batch }, "thread → policy: \(policies)")
        }
    }

    /// Each thread's scheduling policy (`/proc/PID/task/TID/stat`, field 41), by thread id.
    static func threadPolicies(of pid: Int32) -> [Int: Int] {
        let tasks = "/proc/\(pid)/task"
        var policies: [Int: Int] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
            guard let tid = Int(name), let policy = policy(statLine: (try? String(contentsOfFile: "\(tasks)/\(name)/stat", encoding: .utf8)) ?? "")
            else { continue }
            policies[tid] = policy
        }
        return policies
    }

    /// Field 41 of a `stat` line. The command name (field 2) may hold spaces and parentheses,
    /// so fields are counted from after its closing parenthesis, where field 3 starts.
    static func policy(statLine line: String) -> Int? {
        guard let close = line.lastIndex(of: ")") else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ")
        return fields.count > 41 - 3 ? Int(fields[41 - 3]) : nil
    }
}
