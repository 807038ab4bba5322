import Foundation
import Synchronization
import NotesTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The test identity provider (oidc-provider-mock from PyPI) on a free loopback port, started
/// for one test and stopped after it, installed on first use by `Tests/oidc/install-provider.sh`.
final class OIDCProviderFixture: @unchecked Sendable {
    /// The provider's executable, or why it could not be installed.
    static let installation: Result<String, InstallFailure> = {
        let script = repositoryRoot.appendingPathComponent("Tests/oidc/install-provider.sh")
        let process = Process()
        process.executableURL = script
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { return .failure(InstallFailure(message: "\(error)")) }
        let path = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let messages = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, !path.isEmpty else { return .failure(InstallFailure(message: messages)) }
        return .success(path)
    }()

    struct InstallFailure: Error { let message: String }

    /// Whether the provider tests run: the provider installed, or `NOTES_REQUIRE_OIDC=1` (CI),
    /// where a missing provider must fail rather than skip.
    static var shouldRun: Bool {
        if case .success = installation { return true }
        if ProcessInfo.processInfo.environment["NOTES_REQUIRE_OIDC"] == "1" { return true }
        print("OIDC provider tests skipped: the test provider could not be installed (set NOTES_REQUIRE_OIDC=1 to fail instead)")
        return false
    }

    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var browserScript: String { repositoryRoot.appendingPathComponent("Tests/oidc/browser.py").path }

    let process: Process
    let port: Int
    private let exit: ProcessExit
    var issuer: String { "http://127.0.0.1:\(port)" }

    /// Starts the provider with `alice` (and whatever other users `claims` lists) predefined.
    init(users claims: [[String: Any]]) async throws {
        let executable = try Self.installation.mapError { InstallFailureDescription("the test provider is not installed: \($0.message)") }.get()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--port", "0"] + claims.flatMap { user -> [String] in
            let json = String(decoding: try! JSONSerialization.data(withJSONObject: user, options: [.sortedKeys]), as: UTF8.self)
            return ["--user-claims", json]
        }
        process.environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "NO_COLOR": "1", "PYTHONWARNINGS": "ignore"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        let exit = ProcessExit(process)
        try process.run()
        self.process = process
        self.exit = exit
        // Its log is read by FileHandle's own queue, never by a task blocking the cooperative pool.
        let log = Mutex("")
        err.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                return
            }
            log.withLock { $0 = String(($0 + String(decoding: data, as: UTF8.self)).suffix(8192)) }
        }
        var port: Int?
        _ = try await waitUntil(timeout: 60, every: .milliseconds(50)) {
            port = Self.port(in: log.withLock { $0 })
            return port != nil || !process.isRunning
        }
        guard let port else {
            kill(process.processIdentifier, SIGKILL)
            throw InstallFailureDescription("the test provider did not start listening: \(log.withLock { $0 })")
        }
        self.port = port
    }

    private static func port(in log: String) -> Int? {
        guard let range = log.range(of: #"running on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) else { return nil }
        return Int(log[range].split(separator: ":").last ?? "")
    }

    /// Kills the provider: it keeps no state worth a graceful stop, and uvicorn's graceful stop
    /// waits for idle keep-alive connections (the server's) to close, which may be never.
    func stop() async {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        _ = await exit.wait(timeout: .seconds(10))
    }

    /// A TCP port nothing listens on right now (bound, read, closed).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard ok else { throw InstallFailureDescription("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct InstallFailureDescription: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
