import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// `notes login --web` end to end: the real `notes` and `notes-server` binaries and a real
/// OpenID Connect provider (oidc-provider-mock) on loopback, with a script acting as the browser
/// (`Tests/oidc/browser.py`, started by the client through a stand-in `xdg-open`).
@Suite("OIDC: notes login --web against a real provider", .serialized, .enabled(if: OIDCProviderFixture.shouldRun))
struct OIDCWebSignInTests {
    /// One test's world: provider, server (configured with it), a home folder, a fake browser.
    struct World {
        let provider: OIDCProviderFixture
        let server: TestServer
        let home: TemporaryDirectory
        var browserLog: URL { home.appending("browser.log") }
        /// The scheduling policy the stand-in browser ran under, as it recorded it.
        var browserPolicy: String? {
            (try? String(contentsOf: home.appending("browser-policy"), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var environment: [String: String] {
            ["HOME": home.path, "XDG_CONFIG_HOME": home.appending("config").path,
             "PATH": home.appending("bin").path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        }
        var serverURL: String { server.baseURL.absoluteString }

        static func with(browser arguments: [String] = [], signUp: Bool = true, _ body: (World) async throws -> Void) async throws {
            let provider = try await OIDCProviderFixture(users: [
                ["sub": "alice-sub", "preferred_username": "alice", "email": "alice@example.org", "email_verified": true],
            ])
            let home = try TemporaryDirectory("notes-oidc")
            defer { home.remove() }
            let port = try OIDCProviderFixture.freePort()
            // A provider that is down: a port nobody can listen on while the test runs.
            let down = try ClosedPort()
            defer { withExtendedLifetime(down) {} }
            try "s3cret-for-tests\n".write(to: home.appending("client-secret"), atomically: true, encoding: .utf8)
            let providers: [String: Any] = ["providers": [
                ["id": "mock", "issuer": provider.issuer, "client_id": "notes-test", "client_secret_file": home.appending("client-secret").path,
                 "display_name": "Mock ID", "allow_sign_up": signUp, "timeout_seconds": 30],
                ["id": "down", "issuer": "http://127.0.0.1:\(down.port)", "client_id": "notes-test", "display_name": "Down ID", "timeout_seconds": 2],
            ]]
            try JSONSerialization.data(withJSONObject: providers).write(to: home.appending("providers.json"))
            // The stand-in browser: the client runs `xdg-open URL`, which hands the URL to the script.
            try FileManager.default.createDirectory(at: home.appending("bin"), withIntermediateDirectories: true)
            let opener = home.appending("bin/xdg-open")
            let options = (["--sub", "alice-sub"] + arguments).map { "'\($0)'" }.joined(separator: " ")
            // It first records its own scheduling policy (field 41 of its `stat`; its name holds no
            // space), which must be the default one, not the client's batch policy.
            try "#!/bin/sh\ncut -d' ' -f41 /proc/$$/stat > '\(home.appending("browser-policy").path)'\nexec python3 '\(OIDCProviderFixture.browserScript)' \"$1\" \(options) >> '\(home.appending("browser.log").path)' 2>&1\n"
                .write(to: opener, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)
            do {
                let server = try await TestServer(extraArguments: [
                    "--oidc-providers", home.appending("providers.json").path, "--public-url", "http://127.0.0.1:\(port)",
                ], port: port)
                let world = World(provider: provider, server: server, home: home)
                do {
                    try await body(world)
                } catch {
                    await server.stop()
                    throw error
                }
                await server.stop()
            } catch {
                await provider.stop()
                throw error
            }
            await provider.stop()
        }

        /// Runs `notes`; a command still waiting for the browser after the safety net is killed
        /// (and the test then fails on its exit status), so a broken flow cannot hang the suite.
        func notes(_ arguments: [String]) async throws -> ProcessResult {
            try await ProcessRunner.run(BuiltProducts.client, arguments, environment: environment, killAfter: .seconds(240)).result
        }

        /// The browser script's steps, by name.
        func browserSteps() throws -> [String: [String: Any]] {
            let text = (try? String(contentsOf: browserLog, encoding: .utf8)) ?? ""
            var steps: [String: [String: Any]] = [:]
            for line in text.split(separator: "\n") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let step = object["step"] as? String else { continue }
                steps[step] = object
            }
            return steps
        }

        var store: CredentialStore { CredentialStore(directory: home.appending("config/notes")) }

        func storedSession() throws -> StoredSession? {
            try store.session(for: ServerURL(serverURL))
        }

        func explain(_ result: ProcessResult) -> String {
            "exit \(result.exitCode)\nstderr: \(result.stderr)\nbrowser: \((try? String(contentsOf: browserLog, encoding: .utf8)) ?? "")\n"
                + "server log:\n\(server.log.split(separator: "\n").suffix(12).joined(separator: "\n"))"
        }
    }

    @Test("notes login --web signs in through the provider; whoami works, the session refreshes, and the account is alice's")
    func signsInAndRefreshes() async throws {
        try await World.with(browser: ["--replay-callback"]) { world in
            let login = try await world.notes(["login", "--web", world.serverURL, "--provider", "mock"])
            #expect(login.exitCode == 0, "\(world.explain(login))")
            #expect(login.stderr.contains("as alice"), "\(login.stderr)")
            #expect(world.browserPolicy == String(ClientSchedulingTests.normal),
                    "the browser runs under the default scheduling policy, not the client's batch one: \(world.browserPolicy ?? "none")")
            // Its access token taken for expired: the next command must refresh the session first.
            var before = try #require(try world.storedSession())
            before.accessExpiresAt = Date().timeIntervalSince1970 - 1
            let stale = before
            try await world.store.update { @Sendable file in file.store(stale, makeDefault: true) }

            let whoami = try await world.notes(["whoami"])
            #expect(whoami.exitCode == 0, "\(world.explain(whoami))")
            #expect(whoami.stdout.contains("alice"), "\(whoami.stdout)")
            let after = try #require(try world.storedSession())
            #expect(after.refreshToken != before.refreshToken && after.accessToken != before.accessToken, "whoami refreshed the session")

            let users = try await world.server.admin(["user", "list"])
            let row = try #require(users.stdout.split(separator: "\n").first { $0.hasPrefix("alice\t") }).split(separator: "\t")
            #expect(row.count == 5 && row[3] == "mock", "an account made by sign-in has the identity and no password: \(users.stdout)")
        }
    }

    @Test("a sign-in code works once, and the provider's answer replayed to the server is refused; neither is logged")
    func codeAndCallbackAreOneTime() async throws {
        try await World.with(browser: ["--replay-callback"]) { world in
            let login = try await world.notes(["login", "--web", world.serverURL, "--provider", "mock"])
            #expect(login.exitCode == 0, "\(world.explain(login))")
            #expect(try await waitUntil(timeout: 20) { try world.browserSteps()["replayed-callback"] != nil })
            let steps = try world.browserSteps()
            let replayed = try #require(steps["replayed-callback"])
            #expect(replayed["status"] as? Int == 400 && (replayed["body"] as? String ?? "").contains("invalid_state"), "\(replayed)")

            let loopback = try #require(steps["loopback"]?["url"] as? String)
            let code = try #require(URLComponents(string: loopback)?.queryItems?.first { $0.name == "code" }?.value)
            let again = try await TestAPIClient(world.server).send("POST", "/v1/auth/token", json: TokenGrantRequest(
                code: code, codeVerifier: String(repeating: "v", count: 43)))
            #expect(again.status == 400 && again.errorCode == "invalid_grant", "\(again.text)")

            let providerCode = try #require(URLComponents(string: steps["authorize"]?["location"] as? String ?? "")?
                .queryItems?.first { $0.name == "code" }?.value)
            #expect(!world.server.log.contains(code) && !world.server.log.contains(providerCode) && !world.server.log.contains("s3cret"),
                    "\(world.server.log)")
        }
    }

    @Test("consent denied at the provider ends notes login --web with that reason and no session")
    func deniedConsent() async throws {
        try await World.with(browser: ["--deny"]) { world in
            let login = try await world.notes(["login", "--web", world.serverURL, "--provider", "mock"])
            #expect(login.exitCode == 1, "\(world.explain(login))")
            #expect(login.stderr.contains("denied"), "\(login.stderr)")
            #expect(try world.storedSession() == nil)
        }
    }

    @Test("a forged callback state is refused by the server, and a loopback visit with another state by the client; no session")
    func forgedState() async throws {
        try await World.with(browser: ["--forge-state"]) { world in
            let login = try await world.notes(["login", "--web", world.serverURL, "--provider", "mock"])
            #expect(login.exitCode == 1, "\(world.explain(login))")
            #expect(login.stderr.contains("state this command did not send"), "\(login.stderr)")
            let forged = try #require(try world.browserSteps()["forged-callback"])
            #expect(forged["status"] as? Int == 400 && (forged["body"] as? String ?? "").contains("invalid_state"), "\(forged)")
            #expect(try world.storedSession() == nil)
        }
    }

    @Test("a provider that cannot be reached fails notes login --web at once, with a clear reason")
    func providerDown() async throws {
        try await World.with { world in
            let login = try await world.notes(["login", "--web", world.serverURL, "--provider", "down"])
            #expect(login.exitCode == 1, "\(world.explain(login))")
            #expect(login.stderr.contains("cannot be reached"), "\(login.stderr)")
            #expect(try world.storedSession() == nil)
        }
    }

    @Test("with sign-up off, an identity nobody linked is refused; after `user link` it signs in to that account")
    func linkBeforeSignIn() async throws {
        try await World.with(signUp: false) { world in
            let refused = try await world.notes(["login", "--web", world.serverURL, "--provider", "mock"])
            #expect(refused.exitCode == 1, "\(world.explain(refused))")
            #expect(refused.stderr.contains("No account here is linked"), "\(refused.stderr)")

            try await world.server.addUser("ada", password: TestAccount.password)
            let link = try await world.server.admin(["user", "link", "ada", "--provider", world.provider.issuer, "--subject", "alice-sub"])
            #expect(link.exitCode == 0, "\(link.stderr)")
            let login = try await world.notes(["login", "--web", world.serverURL, "--provider", "mock"])
            #expect(login.exitCode == 0, "\(world.explain(login))")
            #expect(login.stderr.contains("as ada"), "\(login.stderr)")
            let users = try await world.server.admin(["user", "list"])
            #expect(users.stdout.contains("password, 127.0.0.1"), "ada has a password and the linked identity: \(users.stdout)")
        }
    }
}
