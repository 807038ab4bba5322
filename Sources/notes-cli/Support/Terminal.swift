import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where output goes: data to stdout, messages and progress to stderr (progress only on a TTY).
struct Terminal: Sendable {
    var environment: [String: String]

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
    var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }
    var stdinIsTTY: Bool { isatty(STDIN_FILENO) == 1 }
    /// Colour only on a terminal and never when `NO_COLOR` is set (no-color.org).
    var usesColor: Bool { stderrIsTTY && environment["NO_COLOR"].map(\.isEmpty) ?? true }

    /// Writes `text` to stdout as is.
    func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `text` and a newline to stdout.
    func print(_ text: String) {
        write(text + "\n")
    }

    /// Writes a message line to stderr.
    func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
