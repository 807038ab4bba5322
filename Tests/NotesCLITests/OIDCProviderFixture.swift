import Foundation
import NotesTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The test identity provider (oidc-provider-mock from PyPI) on a free loopback port, started
/// for one test and stopped after it, installed on first use by `Tests/oidc/install-provider.sh`.
final class OIDCProviderFixture: @unchecked Sendable {
    /// The provider's executable, or why it could not be installed.
    static let installation = install(script: "Tests/oidc/install-provider.sh")

    /// Runs an install script of `Tests/oidc/` (relative to the repository): the executable it
    /// prints last, or its output as the reason it failed.
    static func install(script path: String) -> Result<String, InstallFailure> {
        let script = repositoryRoot.appendingPathComponent(path)
        // One stream for both: the script's progress goes to stderr and its answer, the
        // provider's path, is the last line; a single pipe can never fill while another is read.
        let child: ChildProcess
        do {
            child = try ChildProcess(script, [], environment: ProcessInfo.processInfo.environment,
                                     stdout: .pipe, stderr: .sameAsStandardOutput)
        } catch {
            return .failure(InstallFailure(message: "\(error)"))
        }
        let output = child.standardOutput.map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? ""
        let status = child.waitUntilExit()
        let path = output.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard status == 0, path.hasPrefix("/") else { return .failure(InstallFailure(message: output)) }
        return .success(path)
    }

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

    let process: ChildProcess
    let port: Int
    var issuer: String { "http://127.0.0.1:\(port)" }

    /// Starts the provider with `alice` (and whatever other users `claims` lists) predefined.
    init(users claims: [[String: Any]]) async throws {
        let executable = try Self.installation.mapError { InstallFailureDescription("the test provider is not installed: \($0.message)") }.get()
        let arguments = try ["--port", "0"] + claims.flatMap { user -> [String] in
            ["--user-claims", String(decoding: try JSONSerialization.data(withJSONObject: user, options: [.sortedKeys]), as: UTF8.self)]
        }
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "NO_COLOR": "1",
                           "PYTHONWARNINGS": "ignore"]
        let process = try ChildProcess(URL(fileURLWithPath: executable), arguments, environment: environment, stderr: .pipe)
        self.process = process
        // Its log is read by a thread of its own, never by a task blocking the cooperative pool.
        let log = PipeCollector(process.standardError!, keepingLast: 8192)  // a pipe, as asked just above
        var port: Int?
        _ = try await waitUntil(timeout: 60, every: .milliseconds(50)) {
            port = Self.port(in: log.text)
            return port != nil || process.hasExited
        }
        guard let port else {
            process.send(SIGKILL)
            throw InstallFailureDescription("the test provider did not start listening: \(log.text)")
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
        process.send(SIGKILL)
        _ = await process.wait(timeout: .seconds(10))
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
