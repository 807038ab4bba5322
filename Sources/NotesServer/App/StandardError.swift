import Foundation
import NotesCore

/// Writes one line to stderr: the admin commands' messages (`serve` logs through `BufferedLog`,
/// the only writer of its stderr while it runs). One `write(2)` of the whole line, without a
/// `Data` copy.
func printError(_ line: String) {
    var bytes = Array(line.utf8)
    bytes.append(UInt8(ascii: "\n"))
    writeAll(bytes, to: STDERR_FILENO)
}

/// Writes every byte to `descriptor`, going on after a partial write or an interrupted call.
/// Nothing is reported when stderr itself fails: there is nowhere left to say it.
func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}

/// Writes one line to stdout and flushes, so a parent process reading it sees it at once.
func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
