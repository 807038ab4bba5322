import Foundation
import NotesTestSupport
import Testing

/// Sign-in through a provider that keeps names and e-mail in its userinfo endpoint (nanoidp,
/// whose ID tokens carry only `sub`): the real `notes-server` binary, real nanoidp processes on
/// loopback, and a script acting as the browser on the web app's "Sign in with" button
/// (`Tests/oidc/web-sign-in.py`).
@Suite("OIDC: sign-in through nanoidp, whose profile claims come from userinfo", .serialized, .enabled(if: NanoIDPFixture.shouldRun))
struct OIDCUserInfoSignInTests {
    /// One provider as the test configures it at the server.
    struct Provider {
        let id: String
        let users: [NanoIDPFixture.User]
        var trustVerifiedEmail = false
    }

    /// The server with `providers` (each its own nanoidp), both stopped after `body`.
    static func with(_ providers: [Provider], _ body: (TestServer, TemporaryDirectory) async throws -> Void) async throws {
        let home = try TemporaryDirectory("notes-nanoidp-test")
        defer { home.remove() }
        let port = try OIDCProviderFixture.freePort()
        var started: [NanoIDPFixture] = []
        do {
            for provider in providers {
                started.append(try await NanoIDPFixture(users: provider.users, redirectURI: "http://127.0.0.1:\(port)/auth/oidc/callback"))
            }
            try (NanoIDPFixture.clientSecret + "\n").write(to: home.appending("client-secret"), atomically: true, encoding: .utf8)
            let entries: [[String: Any]] = zip(providers, started).map { provider, fixture in
                ["id": provider.id, "issuer": fixture.issuer, "client_id": NanoIDPFixture.clientID,
                 "client_secret_file": home.appending("client-secret").path, "display_name": provider.id, "allow_sign_up": true,
                 "trust_verified_email": provider.trustVerifiedEmail, "timeout_seconds": 30]
            }
            try JSONSerialization.data(withJSONObject: ["providers": entries]).write(to: home.appending("providers.json"))
            let server = try await TestServer(extraArguments: [
                "--oidc-providers", home.appending("providers.json").path, "--public-url", "http://127.0.0.1:\(port)",
            ], port: port)
            do {
                try await body(server, home)
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        } catch {
            for fixture in started { await fixture.stop() }
            throw error
        }
        for fixture in started { await fixture.stop() }
    }

    /// Presses "Sign in with `provider`" and signs in at nanoidp as `user`: the page the browser
    /// lands on (the account page when signed in), with the steps for a failure's message.
    static func signIn(_ server: TestServer, provider: String, as user: NanoIDPFixture.User) async throws -> (landed: String, steps: String) {
        let result = try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), [
            "python3", NanoIDPFixture.browserScript, server.baseURL.absoluteString, provider, user.name, user.password,
        ], environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        var landed = ""
        for line in result.stdout.split(separator: "\n") {
            guard let step = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  step["step"] as? String == "landed", step["status"] as? Int == 200 else { continue }
            landed = step["body"] as? String ?? ""
        }
        return (landed, "exit \(result.exitCode)\n\(result.stdout)\n\(result.stderr)\nserver log:\n\(server.log.split(separator: "\n").suffix(12).joined(separator: "\n"))")
    }

    /// `user list --json`: each account's name and the providers it signs in with.
    static func accounts(_ server: TestServer) async throws -> [String: [String]] {
        let list = try await server.admin(["user", "list", "--json"])
        let items = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]], "\(list.stdout)")
        return Dictionary(uniqueKeysWithValues: items.map { item in
            (item["username"] as? String ?? "", (item["identities"] as? [[String: Any]] ?? []).compactMap { $0["provider"] as? String })
        })
    }

    @Test("a sign-up through nanoidp names the account after userinfo's preferred_username, not 'user'")
    func signUpIsNamedFromUserInfo() async throws {
        let bob = NanoIDPFixture.User(name: "bob", password: "bob-password-1", email: "Bob@Example.org")
        try await Self.with([Provider(id: "nano", users: [bob])]) { server, _ in
            let signIn = try await Self.signIn(server, provider: "nano", as: bob)
            #expect(signIn.landed.contains("Account: bob"), "\(signIn.steps)")
            #expect(try await Self.accounts(server) == ["bob": ["nano"]])
            #expect(!server.log.contains(NanoIDPFixture.clientSecret) && !server.log.contains("bob-password-1"), "\(server.log)")
        }
    }

    @Test("trust_verified_email joins the account by userinfo's email and email_verified, from another provider")
    func verifiedEmailFromUserInfoJoins() async throws {
        let bob = NanoIDPFixture.User(name: "bob", password: "bob-password-1", email: "Bob@Example.org")
        let robert = NanoIDPFixture.User(name: "robert", password: "robert-password-1", email: "bob@example.org")
        try await Self.with([Provider(id: "first", users: [bob]), Provider(id: "second", users: [robert], trustVerifiedEmail: true)]) { server, _ in
            let first = try await Self.signIn(server, provider: "first", as: bob)
            #expect(first.landed.contains("Account: bob"), "\(first.steps)")
            let second = try await Self.signIn(server, provider: "second", as: robert)
            #expect(second.landed.contains("Account: bob"), "the second provider's identity joins bob's account: \(second.steps)")
            #expect(try await Self.accounts(server) == ["bob": ["first", "second"]])
        }
    }
}
