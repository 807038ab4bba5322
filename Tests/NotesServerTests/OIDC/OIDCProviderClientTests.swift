import Foundation
import NotesTestSupport
import Synchronization
import Testing
@testable import NotesServer

/// The server's side of a provider, against a scripted provider on loopback: discovery, keys
/// (cached, fetched again once for an unknown key id), the ID token checks, and the bounds on
/// every request (deadline, size, no redirect to another origin).
@Suite("OIDC: provider client against a scripted provider")
struct OIDCProviderClientTests {
    /// A provider whose key set the test changes as it goes.
    final class ScriptedProvider: Sendable {
        /// What the handler reads, changed by the test as it goes.
        final class State: Sendable {
            let keys = Mutex<[TestSigningKey]>([TestKeys.rsa, TestKeys.ec])
            let issuerOverride = Mutex<String?>(nil)
            let port = Mutex(0)
        }

        let state = State()
        let server: ScriptedHTTPServer

        init(jwks custom: (@Sendable (ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Reply)? = nil) throws {
            let state = self.state
            server = try ScriptedHTTPServer { request in
                let base = "http://127.0.0.1:\(state.port.withLock { $0 })"
                switch request.path {
                case "/.well-known/openid-configuration":
                    let issuer = state.issuerOverride.withLock { $0 } ?? base
                    return .json(200, #"{"issuer":"\#(issuer)","authorization_endpoint":"\#(base)/authorize","token_endpoint":"\#(base)/token","jwks_uri":"\#(base)/jwks"}"#)
                case "/jwks":
                    if let custom { return custom(request) }
                    return .json(200, TestSigningKey.jwks(state.keys.withLock { $0 }))
                default:
                    return .json(404, "{}")
                }
            }
            state.port.withLock { $0 = server.port }
        }

        var issuer: String { server.baseURL }
        var jwksFetches: Int { server.requests.filter { $0.path == "/jwks" }.count }

        func client(timeout: Int = 5, clientID: String = "notes") -> OIDCProviderClient {
            OIDCProviderClient(settings: OIDCProviderSettings(
                id: "scripted", issuer: issuer, clientID: clientID, clientSecret: nil, displayName: "Scripted",
                allowSignUp: true, trustVerifiedEmail: false, timeoutSeconds: timeout, scopes: ["openid"]),
                http: ProviderHTTPClient(), clock: ServerClock())
        }

        func token(_ key: TestSigningKey = TestKeys.rsa, kid: String? = nil, claims changes: [String: Any] = [:]) -> String {
            let now = Int(Date().timeIntervalSince1970)
            var claims: [String: Any] = ["iss": issuer, "sub": "alice", "aud": "notes", "exp": now + 300, "iat": now, "nonce": "n-1"]
            claims.merge(changes) { _, new in new }
            return key.sign(claims, header: ["kid": kid ?? key.kid])
        }
    }

    @Test("a good token is accepted; the key set is fetched once and then cached")
    func keysCached() async throws {
        let provider = try ScriptedProvider()
        defer { provider.server.stop() }
        let client = provider.client()
        #expect(try await client.verify(idToken: provider.token(), nonce: "n-1").sub == "alice")
        #expect(try await client.verify(idToken: provider.token(TestKeys.ec), nonce: "n-1").sub == "alice")
        #expect(provider.jwksFetches == 1)
    }

    @Test("an unknown kid makes one fetch of the key set: a rotated-in key is then accepted, a kid still unknown is refused")
    func unknownKidRefetchedOnce() async throws {
        let provider = try ScriptedProvider()
        defer { provider.server.stop() }
        let client = provider.client()
        _ = try await client.verify(idToken: provider.token(), nonce: "n-1")
        let rotated = TestSigningKey(.ec, kid: "ec-2")
        provider.state.keys.withLock { $0.append(rotated) }
        #expect(try await client.verify(idToken: provider.token(rotated), nonce: "n-1").sub == "alice")
        #expect(provider.jwksFetches == 2)
        await #expect(throws: IDTokenError.unknownKey("nobody")) {
            try await client.verify(idToken: provider.token(kid: "nobody"), nonce: "n-1")
        }
        #expect(provider.jwksFetches == 3, "one more fetch for the unknown kid, not more")
    }

    @Test("a token for another client, from another issuer, expired, or signed by another key is refused",
          arguments: ["audience", "issuer", "expired", "key", "nonce"])
    func misbehavingTokensRefused(fault: String) async throws {
        let provider = try ScriptedProvider()
        defer { provider.server.stop() }
        let now = Int(Date().timeIntervalSince1970)
        let (token, expected): (String, IDTokenError) = switch fault {
        case "audience": (provider.token(claims: ["aud": "another-client"]), .wrongAudience)
        case "issuer": (provider.token(claims: ["iss": "http://127.0.0.1:1"]), .wrongIssuer)
        case "expired": (provider.token(claims: ["exp": now - 3600, "iat": now - 7200]), .expired)
        case "key": (provider.token(TestKeys.otherRSA), .badSignature)
        default: (provider.token(claims: ["nonce": "replayed"]), .wrongNonce)
        }
        await #expect(throws: expected) { try await provider.client().verify(idToken: token, nonce: "n-1") }
    }

    @Test("a discovery document that names another issuer is refused")
    func discoveryIssuerMustMatch() async throws {
        let provider = try ScriptedProvider()
        defer { provider.server.stop() }
        provider.state.issuerOverride.withLock { $0 = "https://evil.example" }
        await #expect(throws: ProviderError.badAnswer("the discovery document names another issuer")) { try await provider.client().discover() }
    }

    @Test("a redirect to another origin is not followed")
    func redirectToAnotherOrigin() async throws {
        let elsewhere = try ScriptedHTTPServer { _ in .json(200, #"{"keys":[]}"#) }
        defer { elsewhere.stop() }
        let provider = try ScriptedProvider { _ in .respond(status: 302, headers: ["Location": elsewhere.baseURL + "/jwks"], body: Data()) }
        defer { provider.server.stop() }
        await #expect(throws: ProviderError.redirected("jwks")) {
            try await provider.client().verify(idToken: provider.token(), nonce: "n-1")
        }
        #expect(elsewhere.requests.isEmpty)
    }

    @Test("a redirect within the provider's origin is followed for a GET, its relative Location resolved")
    func redirectWithinOrigin() async throws {
        let provider = try ScriptedProvider { request in
            request.query.isEmpty ? .respond(status: 302, headers: ["Location": "/jwks?moved=1"], body: Data())
                                  : .json(200, TestSigningKey.jwks([TestKeys.rsa]))
        }
        defer { provider.server.stop() }
        #expect(try await provider.client().verify(idToken: provider.token(), nonce: "n-1").sub == "alice")
        #expect(provider.server.requests.filter { $0.path == "/jwks" }.map(\.query) == ["", "moved=1"])
    }

    @Test("an answer larger than the limit is cut off")
    func answerTooLarge() async throws {
        let huge = #"{"keys":[],"padding":""# + String(repeating: "x", count: OIDCProviderClient.maxDocumentBytes) + #""}"#
        let provider = try ScriptedProvider { _ in .json(200, huge) }
        defer { provider.server.stop() }
        await #expect(throws: ProviderError.tooLarge("jwks")) {
            try await provider.client().verify(idToken: provider.token(), nonce: "n-1")
        }
    }

    @Test("a provider that does not answer in time fails within its deadline")
    func slowProvider() async throws {
        let provider = try ScriptedProvider { _ in .raw { _ in Thread.sleep(forTimeInterval: 4) } }
        defer { provider.server.stop() }
        await #expect(throws: ProviderError.timedOut("jwks")) {
            try await provider.client(timeout: 1).verify(idToken: provider.token(), nonce: "n-1")
        }
    }

    @Test("a provider nobody listens for is reported unreachable")
    func providerDown() async throws {
        let closed = try ClosedPort()
        let client = OIDCProviderClient(settings: OIDCProviderSettings(
            id: "down", issuer: "http://127.0.0.1:\(closed.port)", clientID: "notes", clientSecret: nil, displayName: "Down",
            allowSignUp: true, trustVerifiedEmail: false, timeoutSeconds: 5, scopes: ["openid"]),
            http: ProviderHTTPClient(), clock: ServerClock())
        await #expect(throws: ProviderError.unreachable("discovery")) { try await client.discover() }
        withExtendedLifetime(closed) {}
    }
}
