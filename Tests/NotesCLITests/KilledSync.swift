import Foundation
import NotesTestSupport

/// A `notes` child killed with SIGKILL at an observed moment of its work (a batch in the
/// server's log, a file in the folder), never after a fixed delay, so a kill test knows it
/// interrupted the sync rather than hoping so.
struct KilledSync {
    /// Whether `trigger` held before the deadline or the child's own exit.
    let sawTrigger: Bool
    /// Whether the child died of the SIGKILL, that is, it was still working when it came.
    let killedBySignal: Bool

    /// Both: the kill landed while the sync was under way.
    var landedMidSync: Bool { sawTrigger && killedBySignal }

    /// Starts `notes ARGS` in `environment`, polls `trigger` every 5 ms, and kills the child with
    /// SIGKILL as soon as it holds; waits for the child to be gone.
    static func run(_ arguments: [String], environment: [String: String],
                    when trigger: () throws -> Bool) async throws -> KilledSync {
        let child = try ChildProcess(BuiltProducts.client, arguments,
                                     environment: environment.merging(["PATH": "/usr/bin:/bin"]) { $1 })
        var saw = false
        _ = try await waitUntil(timeout: 60, every: .milliseconds(5)) {
            saw = try trigger()
            return saw || child.hasExited
        }
        // A child that already exited was reaped: `send` then signals nobody.
        child.send(SIGKILL)
        await child.wait()
        let killed = child.termination == .signalled(SIGKILL)
        return KilledSync(sawTrigger: saw, killedBySignal: killed)
    }
}
