import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads passwords for command-line tools (`notes login`, `notes-server user add|passwd`): from
/// a no-echo prompt on a terminal, or one line of standard input for scripts (`--password-stdin`).
///
/// The one place that switches terminal echo off, so every tool gets the same care: echo goes
/// off before the prompt is shown (nothing typed after the prompt can appear), the newline the
/// user types is still echoed (`ECHONL`) so the next message starts on its own line, and the
/// terminal is restored whatever happens, also when Ctrl-C (or SIGTERM, SIGHUP, SIGQUIT) arrives
/// at the prompt, since a shell left without echo looks broken to its user.
public enum SecretPrompt {
    /// The signals that would otherwise kill the process with the terminal still silent.
    private static let fatalSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Whether standard input is a terminal.
    public static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Prompts on stderr and reads a line from the terminal with echo turned off.
    /// - Returns: the line without its newline, or `nil` at end of input, and also when stdin
    ///   is not a terminal: a secret is never read with echo on unasked (use
    ///   `readLineFromStdin()` for `--password-stdin`).
    public static func readHidden(prompt: String) -> String? {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return nil }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK)
        silent.c_lflag |= tcflag_t(ECHONL)
        let guards = restoreOnSignal(original)
        // TCSAFLUSH drops what was typed before the prompt (it was echoed, so it is no secret to keep).
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        FileHandle.standardError.write(Data(prompt.utf8))
        let line = readLine(strippingNewline: true)
        // TCSADRAIN, not TCSAFLUSH: what the user types ahead of the next prompt is theirs to keep.
        tcsetattr(STDIN_FILENO, TCSADRAIN, &original)
        guards.cancel()
        if line == nil { FileHandle.standardError.write(Data("\n".utf8)) }  // Ctrl-D: ECHONL saw no newline
        return line
    }

    /// Prompts on stderr and reads one echoed line, such as a user name, trimmed of spaces.
    /// - Returns: the line, or `nil` at end of input.
    public static func readVisible(prompt: String) -> String? {
        FileHandle.standardError.write(Data(prompt.utf8))
        return readLine(strippingNewline: true).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Reads one line of standard input (for `--password-stdin`), without its line ending
    /// (`\n` or `\r\n`); nothing else is trimmed, since a password may hold spaces.
    public static func readLineFromStdin() -> String? {
        readLine(strippingNewline: true)
    }

    /// The terminal settings to put back if a fatal signal arrives mid-prompt. Global because
    /// a signal handler can capture nothing; written before any handler is installed and only
    /// read inside one (a plain load of a C struct, which is async-signal-safe).
    nonisolated(unsafe) private static var terminalToRestore = termios()

    /// Until cancelled, a fatal signal restores `original` on the terminal, then kills the
    /// process with that same signal, so the parent shell still sees "interrupted".
    ///
    /// A real `sigaction` handler rather than a dispatch source: a signal whose disposition is
    /// "ignore" is discarded by the kernel, so a dispatch source behind `SIG_IGN` would never see
    /// Ctrl-C. The handler may run on any thread; everything it calls is async-signal-safe.
    private static func restoreOnSignal(_ original: termios) -> SignalGuards {
        terminalToRestore = original
        var guards = SignalGuards()
        for signalNumber in fatalSignals {
            var previous = sigaction()
            sigaction(signalNumber, nil, &previous)
            // A signal the parent told us to ignore (`nohup`, a background job) stays ignored.
            guard !SignalGuards.isIgnored(previous) else { continue }
            var action = sigaction()
            SignalGuards.setHandler(&action) { signalNumber in
                var restore = SecretPrompt.terminalToRestore
                tcsetattr(STDIN_FILENO, TCSANOW, &restore)
                // SA_RESETHAND made the default action current again: this kill ends the process.
                kill(getpid(), signalNumber)
            }
            action.sa_flags = Int32(bitPattern: UInt32(truncatingIfNeeded: SA_RESETHAND))  // 0x80000000 on Linux
            sigemptyset(&action.sa_mask)
            sigaction(signalNumber, &action, nil)
            guards.previous.append((signalNumber, previous))
        }
        return guards
    }
}

/// The signal handlers installed for one prompt; `cancel()` puts the earlier ones back.
private struct SignalGuards {
    var previous: [(Int32, sigaction)] = []

    func cancel() {
        for (signalNumber, action) in previous {
            var action = action
            sigaction(signalNumber, &action, nil)
        }
    }

    static func isIgnored(_ action: sigaction) -> Bool {
        #if canImport(Glibc)
        let handler = action.__sigaction_handler.sa_handler
        #else
        let handler = action.__sigaction_u.__sa_handler
        #endif
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    static func setHandler(_ action: inout sigaction, _ handler: @escaping @convention(c) (Int32) -> Void) {
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
        #else
        action.__sigaction_u.__sa_handler = handler
        #endif
    }
}
