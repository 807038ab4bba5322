import Foundation

extension ProcessRunner {
    /// Runs `executable` like `run`, but kills it (SIGKILL) if it is still running after
    /// `limit`: for tests that a program ends by itself, which must not hang the suite when it
    /// does not. The limit is a generous safety net, not a timing assertion.
    /// - Returns: the result, and whether the program exited by itself within `limit`.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                           killAfter limit: Duration) async throws -> (result: ProcessResult, exitedByItself: Bool) {
        // A closed, empty stdin: nothing waits for input that never comes.
        try await execute(executable, arguments, environment: environment, stdin: nil, currentDirectory: nil, killAfter: limit)
    }
}
