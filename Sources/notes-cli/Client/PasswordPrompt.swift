import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a line from the terminal without echoing it, for `notes login` on a TTY.
///
/// Echo is switched off with termios and restored afterwards, also when the user presses
/// Ctrl-C at the prompt (else their shell would be left without echo).
enum PasswordPrompt {
    /// Prints `prompt` to stderr and reads one line from stdin with echo off.
    /// - Throws: `CLIError` when stdin is not a terminal or is closed before a line.
    static func read(_ prompt: String) throws(CLIError) -> String {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else {
            throw .usage("cannot prompt for a password: stdin is not a terminal; use --password-stdin")
        }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        FileHandle.standardError.write(Data(prompt.utf8))
        let saved = original
        // Restore the terminal if Ctrl-C arrives while echo is off, then die of SIGINT as usual.
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler {
            var restore = saved
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &restore)
            FileHandle.standardError.write(Data("\n".utf8))
            exit(130)
        }
        interrupt.resume()
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        let line = Swift.readLine(strippingNewline: true)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
        interrupt.cancel()
        signal(SIGINT, SIG_DFL)
        guard let line else { throw .failure("no password entered") }
        return line
    }

    /// Prints `prompt` to stderr and reads one echoed line (the user name).
    static func readVisible(_ prompt: String) throws(CLIError) -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        guard let line = Swift.readLine(strippingNewline: true) else { throw .failure("no user name entered") }
        return line.trimmingCharacters(in: .whitespaces)
    }
}
