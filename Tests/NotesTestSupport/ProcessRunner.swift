import Foundation

/// The outcome of running a program to completion.
public struct ProcessResult: Sendable {
    public var exitCode: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs real binaries for end-to-end tests, with an explicit environment and optional stdin.
public enum ProcessRunner {
    /// Runs `executable` with `arguments` and waits for it to exit.
    /// - Parameters:
    ///   - environment: the complete environment (nothing is inherited but `PATH`), so tests never
    ///     read the developer's own credentials.
    ///   - stdin: bytes written to the program's standard input, which is then closed.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                           stdin: String? = nil, currentDirectory: URL? = nil) async throws -> ProcessResult {
        try await execute(executable, arguments, environment: environment, stdin: stdin,
                          currentDirectory: currentDirectory, killAfter: nil).result
    }

    /// Runs `executable`; with `limit`, kills it (SIGKILL) if it is still running by then.
    /// - Returns: the result, and whether the program exited by itself.
    static func execute(_ executable: URL, _ arguments: [String], environment: [String: String], stdin: String?,
                        currentDirectory: URL?, killAfter limit: Duration?) async throws -> (result: ProcessResult, exitedByItself: Bool) {
        var env = environment
        env["PATH"] = env["PATH"] ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let child = try ChildProcess(executable, arguments, environment: env, currentDirectory: currentDirectory,
                                     stdin: .pipe, stdout: .pipe, stderr: .pipe)
        // The three pipe ends exist for a `.pipe` stream: read them unconditionally.
        let (input, output, errors) = (child.standardInput!, child.standardOutput!, child.standardError!)
        // A program may exit without reading its stdin: the write then fails (EPIPE), and the
        // program's own exit status is what the test looks at.
        if let stdin { try? input.write(contentsOf: Data(stdin.utf8)) }
        try? input.close()
        // Drain both pipes concurrently so a chatty program never blocks on a full pipe.
        async let out = onOwnThread { output.readDataToEndOfFile() }
        async let err = onOwnThread { errors.readDataToEndOfFile() }
        var byItself = true
        if let limit, await child.wait(timeout: limit) == nil {
            byItself = false
            child.send(SIGKILL)
        }
        let (outData, errData) = await (out, err)
        let status = await child.wait()
        return (ProcessResult(exitCode: status,
                              stdout: String(decoding: outData, as: UTF8.self),
                              stderr: String(decoding: errData, as: UTF8.self)), byItself)
    }
}
