import Foundation
import NotesTestSupport

/// A `notes sync --watch` running in the background for a test: the real binary, its output
/// collected as it comes, stopped (SIGTERM, then SIGKILL if it lingers) by the test.
///
/// Watchers in tests run with a short quiet period and short poll and backoff intervals
/// (`WatchSettings`' test hooks), so the suite stays fast against a server without long poll.
final class WatchingSync: Sendable {
    private let process: ChildProcess
    private let out: PipeCollector
    private let err: PipeCollector

    /// Starts `notes sync --watch FOLDER --quiet-period 0.2 EXTRA` with `environment` (HOME and
    /// the config folder) plus the test hooks and `hooks`.
    init(folder: String, environment: [String: String], extra: [String] = [], hooks: [String: String] = [:]) throws {
        var env = environment.merging(["NOTES_TEST_WATCH_POLL": "0.2", "NOTES_TEST_WATCH_MAX_BACKOFF": "1"]) { $1 }
        env.merge(hooks) { $1 }
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        process = try ChildProcess(BuiltProducts.client, ["sync", "--watch", folder, "--quiet-period", "0.2"] + extra,
                                   environment: env, stdout: .pipe, stderr: .pipe)
        // Both are pipes, as asked just above.
        out = PipeCollector(process.standardOutput!)
        err = PipeCollector(process.standardError!)
    }

    var pid: Int32 { process.processIdentifier }
    var stdout: String { out.text }
    var stderr: String { err.text }
    var hasExited: Bool { process.hasExited }

    /// Waits until the first sync is done and the watcher says it is watching.
    func waitUntilWatching(timeout: Double = 60) async throws -> Bool {
        try await waitUntil(timeout: timeout, every: .milliseconds(50)) { self.stdout.contains("watching ") || self.hasExited }
            && !hasExited
    }

    /// Sends `signal` to the watcher.
    func send(_ signal: Int32) {
        process.send(signal)
    }

    /// The exit status, or nil if it is still running after `timeout`.
    func waitForExit(timeout: Duration = .seconds(60)) async -> Int32? {
        await process.wait(timeout: timeout)
    }

    /// SIGTERM, and the exit status; a watcher still running 30 s later is killed (status nil).
    @discardableResult
    func stop() async -> Int32? {
        send(SIGTERM)
        if let status = await process.wait(timeout: .seconds(30)) { return status }
        send(SIGKILL)
        await process.wait()
        return nil
    }
}
