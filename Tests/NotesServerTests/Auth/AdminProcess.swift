import Foundation
import NotesTestSupport
import Synchronization

/// What an admin command did.
struct AdminResult: Sendable {
    let exitCode: Int32
    let stdout: String
    let stderr: String
}

/// Runs `notes-server` admin commands against a test server's database without blocking any
/// shared thread pool while the command runs.
///
/// `ProcessRunner` reads the pipes with blocking calls inside `Task.detached`, which holds two
/// of the cooperative pool's two threads here until the process exits; with many tests running
/// admin commands at once that starves every other test's async work. This runner collects
/// output from readability handlers and resumes from the termination handler instead.
enum AdminProcess {
    /// Runs `notes-server ARGS --db <server's db>` and returns its exit code and output.
    static func run(_ server: TestServer, _ arguments: [String], stdin: String? = nil) async throws -> AdminResult {
        let process = Process()
        process.executableURL = BuiltProducts.server
        process.arguments = arguments + ["--db", server.databasePath]
        process.environment = ["PATH": "/usr/bin:/bin"]
        let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        let output = Mutex((out: Data(), err: Data()))
        outPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.withLock { $0.out.append(data) }
        }
        errPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.withLock { $0.err.append(data) }
        }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in
                // The child has exited, so these reads return at once with whatever is left.
                for pipe in [outPipe, errPipe] { pipe.fileHandleForReading.readabilityHandler = nil }
                let restOut = outPipe.fileHandleForReading.readDataToEndOfFile()
                let restErr = errPipe.fileHandleForReading.readDataToEndOfFile()
                output.withLock {
                    $0.out.append(restOut)
                    $0.err.append(restErr)
                }
                continuation.resume(returning: finished.terminationStatus)
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            if let stdin { inPipe.fileHandleForWriting.write(Data(stdin.utf8)) }
            try? inPipe.fileHandleForWriting.close()
        }
        let (out, err) = output.withLock { ($0.out, $0.err) }
        return AdminResult(exitCode: status, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// Adds a user with `password` through `notes-server user add --password-stdin`.
    static func addUser(_ server: TestServer, _ username: String, password: String) async throws {
        let result = try await run(server, ["user", "add", username, "--password-stdin"], stdin: password + "\n")
        guard result.exitCode == 0 else { throw TestServerError.adminFailed(result.stderr) }
    }
}
