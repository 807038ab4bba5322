import Foundation

/// Writes one line to stderr: the server's log and its admin commands' messages.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Writes one line to stdout and flushes, so a parent process reading it sees it at once.
func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
