import Foundation
import NotesTestSupport
import Synchronization
import Testing
@testable import NotesServer

/// The userinfo step of a sign-in (OpenID Connect Core §5.3), against a scripted provider whose
/// ID token and userinfo answer each test chooses: asked with the access token only when the ID
/// token leaves the profile claims out, and refused when it names another subject.
@Suite("OIDC: profile claims from the userinfo endpoint")
struct OIDCUserInfoTests {
    /// A provider with a token endpoint (an ID token with `idClaims` and the access token
    /// `at-1`) and a userinfo endpoint answering `userInfo` to that access token only.
    final class Provider: Sendable {
        final class State: Sendable {
            let idClaims = Mutex<[String: String]>([:])
            let userInfo = Mutex(#"{"sub":"alice-sub","preferred_username":"alice","email":"Alice@Example.org","email_verified":true}"#)
            let port = Mutex(0)
        }

        let state = State()
        let server: ScriptedHTTPServer

        init() throws {
            let state = self.state
            server = try ScriptedHTTPServer { request in
                let base = "http://127.0.0.1:\(state.port.withLock { $0 })"
                switch request.path {
                case "/.well-known/openid-configuration":
                    return .json(200, #"{"issuer":"\#(base)","authorization_endpoint":"\#(base)/authorize","token_endpoint":"\#(base)/token","jwks_uri":"\#(base)/jwks","userinfo_endpoint":"\#(base)/userinfo"}"#)
                case "/jwks":
                    return .json(200, TestSigningKey.jwks([TestKeys.rsa]))
                case "/token":
                    let now = Int(Date().timeIntervalSince1970)
                    var claims: [String: Any] = ["iss": base, "sub": "alice-sub", "aud": "notes", "exp": now + 300, "iat": now, "nonce": "n-1"]
                    for (name, value) in state.idClaims.withLock({ $0 }) { claims[name] = value == "true" ? true : value }
                    return .json(200, #"{"id_token":"\#(TestKeys.rsa.sign(claims))","token_type":"Bearer","access_token":"at-1"}"#)
                case "/userinfo":
                    guard request.headers["authorization"] == "Bearer at-1" else { return .json(401, #"{"error":"invalid_token"}"#) }
                    return .json(200, state.userInfo.withLock { $0 })
                default:
                    return .json(404, "{}")
                }
            }
            state.port.withLock { $0 = server.port }
        }

        var userInfoRequests: Int { server.requests.filter { $0.path == "/userinfo" }.count }

        func signIn() async throws -> IDTokenClaims {
            let client = OIDCProviderClient(settings: OIDCProviderSettings(
                id: "scripted", issuer: server.baseURL, clientID: "notes", clientSecret: nil, displayName: "Scripted",
                allowSignUp: true, trustVerifiedEmail: true, timeoutSeconds: 5, scopes: ["openid"]),
                http: ProviderHTTPClient(), clock: ServerClock())
            return try await client.signIn(code: "code-1", verifier: String(repeating: "v", count: 43),
                                           redirectURI: "http://notes.test/auth/oidc/callback", nonce: "n-1")
        }
    }

    @Test("an ID token with only sub takes preferred_username, email and email_verified from userinfo, asked with the access token")
    func missingClaimsComeFromUserInfo() async throws {
        let provider = try Provider()
        defer { provider.server.stop() }
        let claims = try await provider.signIn()
        #expect(claims.sub == "alice-sub")
        #expect(claims.preferredUsername == "alice")
        #expect(claims.email == "Alice@Example.org" && claims.emailVerified)
        #expect(provider.userInfoRequests == 1)
    }

    @Test("an ID token that carries the profile claims is used as it is, without asking userinfo")
    func completeIDTokenSkipsUserInfo() async throws {
        let provider = try Provider()
        defer { provider.server.stop() }
        provider.state.idClaims.withLock {
            $0 = ["preferred_username": "ally", "email": "ally@example.org", "email_verified": "true"]
        }
        let claims = try await provider.signIn()
        #expect(claims.preferredUsername == "ally" && claims.email == "ally@example.org" && claims.emailVerified)
        #expect(provider.userInfoRequests == 0)
    }

    @Test("the ID token's own claims win; userinfo's email_verified is not taken for another address")
    func idTokenClaimsWin() async throws {
        let provider = try Provider()
        defer { provider.server.stop() }
        // The ID token names an address without saying whether it is verified.
        provider.state.idClaims.withLock { $0 = ["email": "other@example.org"] }
        let claims = try await provider.signIn()
        #expect(provider.userInfoRequests == 1)
        #expect(claims.preferredUsername == "alice", "filled in: the ID token has none")
        #expect(claims.email == "other@example.org" && !claims.emailVerified, "userinfo's verification is about another address")
    }

    @Test("a userinfo answer about another subject fails the sign-in (OpenID Connect Core 5.3.4)")
    func otherSubjectIsRefused() async throws {
        let provider = try Provider()
        defer { provider.server.stop() }
        provider.state.userInfo.withLock { $0 = #"{"sub":"mallory-sub","preferred_username":"alice","email":"alice@example.org","email_verified":true}"# }
        await #expect(throws: IDTokenError.userInfoSubjectMismatch) { try await provider.signIn() }
    }

    @Test("a userinfo endpoint that fails fails the sign-in, rather than naming the account without it")
    func failingUserInfoFailsTheSignIn() async throws {
        let provider = try Provider()
        defer { provider.server.stop() }
        provider.state.userInfo.withLock { $0 = "not json" }
        await #expect(throws: ProviderError.self) { try await provider.signIn() }
    }
}
