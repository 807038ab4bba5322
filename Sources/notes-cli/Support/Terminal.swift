import Foundation
import NotesCommandLine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `write(2)` on stdout, named apart from `Terminal.write` so the C call resolves on every platform.
private func writeToStandardOutput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
    write(STDOUT_FILENO, bytes, count)
}

/// Where output goes: data to stdout, messages and progress to stderr (progress only on a TTY).
struct Terminal: Sendable, CommandLineOutput {
    var environment: [String: String]

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
    var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }
    var stdinIsTTY: Bool { isatty(STDIN_FILENO) == 1 }

    /// Writes `text` to stdout as is.
    func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `bytes` to stdout as they are, straight from the caller's buffer: large output
    /// (`notes render` of a big file) is not copied into a `Data` first.
    /// - Throws: `OutputError` when stdout cannot be written.
    func write(bytes: UnsafeBufferPointer<UInt8>) throws {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = writeToStandardOutput(next, left)
            if written < 0 {
                if errno == EINTR { continue }
                throw OutputError(errno: errno)
            }
            next += written
            left -= written
        }
    }

    /// Writes `text` and a newline to stdout.
    func print(_ text: String) {
        write(text + "\n")
    }

    /// Writes a message line to stderr, with control characters made visible: messages quote
    /// server text (paths, error messages), which must not steer the terminal.
    func printError(_ text: String) {
        FileHandle.standardError.write(Data((Self.printable(text, keepingLayout: true) + "\n").utf8))
    }
}

/// Text from the network, made safe to show on a terminal.
extension Terminal {
    /// `text` with every character that can steer a terminal or disguise what is shown written
    /// as `\u{1b}`: C0 controls (ESC, NUL, newline...), DEL, C1 controls, the bidirectional
    /// overrides and isolates, and the line and paragraph separators. One readable form for
    /// all of them, the one Swift uses in string literals. Other text, zero-width joiners
    /// (emoji need them) included, is unchanged.
    ///
    /// - Parameter keepingLayout: keep tab, newline, and a carriage return before a newline
    ///   (multi-line messages, note content shown on a terminal).
    static func printable(_ text: String, keepingLayout: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLayout) }) else { return text }
        var result = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            let crlf = keepingLayout && scalar == "\r" && pending == "\n"
            if !crlf && needsEscape(scalar, keepingLayout) {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, _ keepingLayout: Bool) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A: !keepingLayout
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidi marks, overrides, isolates
        case 0x2028, 0x2029: true
        default: false
        }
    }
}
