import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads passwords for command-line tools: from a no-echo prompt on a terminal, or one line of
/// standard input for scripts (`--password-stdin`).
public enum SecretPrompt {
    /// Whether standard input is a terminal.
    public static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Prompts on stderr and reads a line from the terminal with echo turned off.
    /// - Returns: the line without its newline, or `nil` at end of input.
    public static func readHidden(prompt: String) -> String? {
        FileHandle.standardError.write(Data(prompt.utf8))
        var original = termios()
        let canHide = tcgetattr(STDIN_FILENO, &original) == 0
        if canHide {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        }
        defer {
            if canHide {
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
                FileHandle.standardError.write(Data("\n".utf8))
            }
        }
        return readLine(strippingNewline: true)
    }

    /// Reads one line of standard input (for `--password-stdin`), without the newline.
    public static func readLineFromStdin() -> String? {
        readLine(strippingNewline: true)
    }
}
