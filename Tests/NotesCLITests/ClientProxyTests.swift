import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// `notes` goes through the proxy the environment names, as curl does (`http_proxy`,
/// `https_proxy`, `no_proxy`), and checks a TLS server's certificate always, against the
/// authorities `CURL_CA_BUNDLE` names when it is set. Each proxy here is a real one on a
/// loopback port (`LoopbackProxy`), in front of the real server.
@Suite("Client: proxies and TLS trust from the environment")
struct ClientProxyTests {
    @Test("http_proxy carries a plain-HTTP server's requests; no_proxy naming the server bypasses it")
    func httpProxyAndNoProxy() async throws {
        try await LiveServer.with(account: .loggedIn) { (live: LiveServer) in
            let proxy = try LoopbackProxy()
            defer { proxy.stop() }
            let through = try await live.notes(["ls"], environment: ["http_proxy": proxy.url])
            #expect(through.exitCode == 0, "\(through.stderr)")
            #expect(proxy.seen.contains { $0.hasPrefix("GET http://127.0.0.1:\(live.server.port)/v1/notes") }, "\(proxy.seen)")

            let before = proxy.seen.count
            let direct = try await live.notes(["ls"], environment: ["http_proxy": proxy.url, "no_proxy": "127.0.0.1"])
            #expect(direct.exitCode == 0, "\(direct.stderr)")
            #expect(proxy.seen.count == before)
        }
    }

    @Test("https_proxy tunnels to a TLS server trusted through CURL_CA_BUNDLE; untrusted it is refused; no_proxy bypasses the proxy")
    func httpsProxyAndTrust() async throws {
        let files = try TemporaryDirectory("notes-tls")
        defer { files.remove() }
        let (certificate, key) = try await Self.selfSignedCertificate(in: files)
        let server = try await TestServer(extraArguments: ["--tls-cert", certificate, "--tls-key", key])
        let home = try TemporaryDirectory("notes-home")
        let proxy = try LoopbackProxy()
        defer {
            proxy.stop()
            home.remove()
        }
        do {
            try await server.addUser(TestAccount.username, password: TestAccount.password)
            let url = "https://127.0.0.1:\(server.port)"
            let base = ["HOME": home.path, "XDG_CONFIG_HOME": home.appending("config").path, "https_proxy": proxy.url]
            func notes(_ arguments: [String], _ extra: [String: String]) async throws -> ProcessResult {
                try await ProcessRunner.run(BuiltProducts.client, arguments, environment: base.merging(extra) { $1 },
                                            stdin: TestAccount.password + "\n")
            }
            let login = ["login", "--server", url, "--username", TestAccount.username, "--password-stdin"]

            let untrusted = try await notes(login, [:])
            #expect(untrusted.exitCode != 0)
            #expect(untrusted.stderr.contains("the server's TLS certificate is not trusted here"), "\(untrusted.stderr)")

            let trusted = try await notes(login, ["CURL_CA_BUNDLE": certificate])
            #expect(trusted.exitCode == 0, "\(trusted.stderr)")
            #expect(proxy.seen.contains("CONNECT 127.0.0.1:\(server.port)"), "\(proxy.seen)")

            let before = proxy.seen.count
            let direct = try await notes(["whoami"], ["CURL_CA_BUNDLE": certificate, "no_proxy": "127.0.0.1"])
            #expect(direct.exitCode == 0, "\(direct.stderr)")
            #expect(direct.stdout == "\(TestAccount.username) on \(url)\n")
            #expect(proxy.seen.count == before)
        } catch {
            _ = await server.stop()
            throw error
        }
        _ = await server.stop()
    }

    /// A certificate for `127.0.0.1` signed by its own key, made by the `openssl` program.
    static func selfSignedCertificate(in directory: TemporaryDirectory) async throws -> (certificate: String, key: String) {
        let certificate = directory.appending("cert.pem").path
        let key = directory.appending("key.pem").path
        let made = try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/openssl"),
                                               ["req", "-x509", "-newkey", "rsa:2048",
                                                "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                                                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate])
        try #require(made.exitCode == 0, "openssl: \(made.stderr)")
        return (certificate, key)
    }
}
