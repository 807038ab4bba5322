import Foundation
import NotesTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// nanoidp (PyPI), a real OpenID Connect provider whose ID tokens carry only `sub` and whose
/// userinfo endpoint carries `preferred_username`, `email` and `email_verified`, on a free loopback
/// port for one test, configured from a temporary folder, stopped after it. Installed on first
/// use by `Tests/oidc/install-nanoidp.sh`.
final class NanoIDPFixture: @unchecked Sendable {
    /// nanoidp's executable, or why it could not be installed.
    static let installation = OIDCProviderFixture.install(script: "Tests/oidc/install-nanoidp.sh")

    /// Whether the nanoidp tests run: it installed, or `NOTES_REQUIRE_OIDC=1` (CI), where a
    /// missing provider must fail rather than skip.
    static var shouldRun: Bool {
        if case .success = installation { return true }
        if ProcessInfo.processInfo.environment["NOTES_REQUIRE_OIDC"] == "1" { return true }
        print("nanoidp tests skipped: nanoidp could not be installed (set NOTES_REQUIRE_OIDC=1 to fail instead)")
        return false
    }

    /// One account at the provider.
    struct User {
        let name: String
        let password: String
        let email: String
    }

    static let clientID = "notes-test"
    static let clientSecret = "nano-secret-for-tests"
    /// The script that plays the browser through the web app's "Sign in with" button.
    static var browserScript: String { OIDCProviderFixture.repositoryRoot.appendingPathComponent("Tests/oidc/web-sign-in.py").path }

    let process: ChildProcess
    let port: Int
    let directory: TemporaryDirectory
    var issuer: String { "http://127.0.0.1:\(port)" }

    /// Starts nanoidp with `users`, and `notes-test` as a client whose one redirect URI is `redirectURI`.
    init(users: [User], redirectURI: String) async throws {
        let executable = try Self.installation.mapError { InstallFailureDescription("nanoidp is not installed: \($0.message)") }.get()
        let port = try OIDCProviderFixture.freePort()
        let directory = try TemporaryDirectory("notes-nanoidp")
        // Keys and state stay in the test's folder (nanoidp's default key folder is relative to
        // where it was started).
        let settings = """
            config_version: 1
            server: {host: "127.0.0.1", port: \(port)}
            jwt: {keys_dir: "\(directory.appending("keys").path)"}
            oauth:
              issuer: "http://127.0.0.1:\(port)"
              audience: "\(Self.clientID)"
              clients:
                - {client_id: "\(Self.clientID)", client_secret: "\(Self.clientSecret)", redirect_uris: ["\(redirectURI)"]}
            """
        let accounts = users.map { "  \($0.name): {password: \"\($0.password)\", email: \"\($0.email)\"}" }.joined(separator: "\n")
        do {
            try settings.write(to: directory.appending("settings.yaml"), atomically: true, encoding: .utf8)
            try "config_version: 1\nusers:\n\(accounts)\n".write(to: directory.appending("users.yaml"), atomically: true, encoding: .utf8)
            let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "NO_COLOR": "1", "PYTHONWARNINGS": "ignore"]
            process = try ChildProcess(URL(fileURLWithPath: executable), ["--config", directory.path], environment: environment,
                                       currentDirectory: directory.url, stdout: .pipe, stderr: .sameAsStandardOutput)
        } catch {
            directory.remove()
            throw error
        }
        self.port = port
        self.directory = directory
        // Its log is read by a thread of its own, never by a task blocking the cooperative pool.
        let log = PipeCollector(process.standardOutput!, keepingLast: 8192)  // a pipe, as asked just above
        let process = self.process
        let listening = try await waitUntil(timeout: 90, every: .milliseconds(100)) {
            log.text.contains("Running on http://127.0.0.1:\(port)") || process.hasExited
        }
        guard listening, !process.hasExited else {
            await stop()
            throw InstallFailureDescription("nanoidp did not start listening: \(log.text)")
        }
    }

    /// Kills the provider (it keeps no state worth a graceful stop) and removes its folder.
    func stop() async {
        process.send(SIGKILL)
        _ = await process.wait(timeout: .seconds(10))
        directory.remove()
    }
}
