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
        BrokenPipes.ignore()
        let process = Process()
        process.executableURL = BuiltProducts.client
        process.arguments = arguments
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let exit = ProcessExit(process)
        try process.run()
        var saw = false
        _ = try await waitUntil(timeout: 60, every: .milliseconds(5)) {
            saw = try trigger()
            return saw || exit.hasExited
        }
        // A child that already exited was reaped: its pid may belong to someone else now.
        if !exit.hasExited { kill(process.processIdentifier, SIGKILL) }
        _ = await exit.wait()
        let killed = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
        return KilledSync(sawTrigger: saw, killedBySignal: killed)
    }
}
