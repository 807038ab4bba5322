import Foundation

extension ProcessRunner {
    /// Runs `executable` like `run`, but kills it (SIGKILL) if it is still running after
    /// `limit`: for tests that a program ends by itself, which must not hang the suite when it
    /// does not. The limit is a generous safety net, not a timing assertion.
    /// - Returns: the result, and whether the program exited by itself within `limit`.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                           killAfter limit: Duration) async throws -> (result: ProcessResult, exitedByItself: Bool) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = environment
        env["PATH"] = env["PATH"] ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        process.environment = env
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        let exit = ProcessExit(process)
        try process.run()
        async let out = onOwnThread { outPipe.fileHandleForReading.readDataToEndOfFile() }
        async let err = onOwnThread { errPipe.fileHandleForReading.readDataToEndOfFile() }
        var byItself = true
        if await exit.wait(timeout: limit) == nil {
            byItself = false
            kill(process.processIdentifier, SIGKILL)
        }
        let (outData, errData) = await (out, err)
        let status = await exit.wait()
        return (ProcessResult(exitCode: status, stdout: String(decoding: outData, as: UTF8.self),
                              stderr: String(decoding: errData, as: UTF8.self)), byItself)
    }
}
