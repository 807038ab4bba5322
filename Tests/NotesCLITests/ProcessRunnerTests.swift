import Foundation
import NotesTestSupport
import Testing

/// The harness the end-to-end tests stand on: a program that exits without reading its stdin
/// (a refused `notes login --password-stdin`, say) must give its exit status, not a SIGPIPE that
/// ends the whole test run (it did, once in a while, as signal 13).
@Suite("Test harness: running programs")
struct ProcessRunnerTests {
    @Test("a program that exits without reading a large stdin reports its exit status")
    func stdinNobodyReadsIsNotFatal() async throws {
        let megabyte = String(repeating: "x", count: 1 << 20)  // far past a pipe's 64 KiB buffer
        for _ in 0..<3 {
            let result = try await ProcessRunner.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "exit 7"], stdin: megabyte)
            #expect(result.exitCode == 7)
        }
    }
}
