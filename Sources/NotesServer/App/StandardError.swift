import Foundation
import NotesCore

/// Writes one line to stderr: the server's log and its admin commands' messages.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Writes one server log line to stderr, stamped with the time in RFC 3339 UTC
/// (`2026-12-01T04:50:26.123Z req=… GET /v1/notes 200 3ms`), so lines can be matched with
/// other systems' logs without relying on journald's clock.
func printLogLine(_ line: String, now: Date = Date()) {
    printError(WireTime.string(fromMilliseconds: Int64((now.timeIntervalSince1970 * 1000).rounded(.down))) + " " + line)
}

/// Writes one line to stdout and flushes, so a parent process reading it sees it at once.
func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
