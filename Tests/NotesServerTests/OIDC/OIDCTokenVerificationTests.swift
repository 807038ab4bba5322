import Foundation
import Testing
@testable import NotesServer

/// ID token signatures are checked by libcrypto against the provider's keys: only RS256 and
/// ES256, only with the key the token names, and any change to the token breaks it.
@Suite("OIDC: JWS signature verification")
struct OIDCTokenVerificationTests {
    static var claims: [String: Any] { ["iss": "https://id.example", "sub": "alice", "aud": "notes", "exp": 2_000_000_000,
                                        "iat": 1_700_000_000, "nonce": "n-1"] }

    @Test("RS256 and ES256 tokens signed by the provider's key are accepted", arguments: [TestKeys.rsa, TestKeys.ec])
    func goodSignatureAccepted(key: TestSigningKey) throws {
        let jws = try JSONWebSignature(compact: key.sign(Self.claims))
        let verification = try #require(jws.key(in: [try TestKeys.rsa.verificationKey(), try TestKeys.ec.verificationKey()]))
        try jws.verify(with: verification)
        #expect(try IDTokenClaims.decode(jws.payload).sub == "alice")
    }

    @Test("a token whose payload was changed after signing is refused", arguments: [TestKeys.rsa, TestKeys.ec])
    func tamperedPayloadRefused(key: TestSigningKey) throws {
        let parts = key.sign(Self.claims).split(separator: ".").map(String.init)
        var forged = Self.claims
        forged["sub"] = "mallory"
        let jws = try JSONWebSignature(compact: [parts[0], TestSigningKey.part(forged), parts[2]].joined(separator: "."))
        #expect(throws: IDTokenError.badSignature) { try jws.verify(with: try key.verificationKey()) }
    }

    @Test("a token whose signature was changed is refused", arguments: [TestKeys.rsa, TestKeys.ec])
    func tamperedSignatureRefused(key: TestSigningKey) throws {
        let parts = key.sign(Self.claims).split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[signature.count / 2] ^= 0x01
        let jws = try JSONWebSignature(compact: [parts[0], parts[1], Base64URL.encode(signature)].joined(separator: "."))
        #expect(throws: IDTokenError.badSignature) { try jws.verify(with: try key.verificationKey()) }
    }

    @Test("a token signed by another key with the same kid is refused")
    func wrongKeyRefused() throws {
        let jws = try JSONWebSignature(compact: TestKeys.otherRSA.sign(Self.claims))
        let key = try #require(jws.key(in: [try TestKeys.rsa.verificationKey()]))
        #expect(throws: IDTokenError.badSignature) { try jws.verify(with: key) }
    }

    @Test("alg none and the HMAC family are refused before any key is looked at", arguments: ["none", "HS256", "RS512", "PS256"])
    func unsupportedAlgorithmRefused(alg: String) throws {
        let token = TestSigningKey.part(["alg": alg, "kid": "rsa-1"]) + "." + TestSigningKey.part(Self.claims) + "."
            + (alg == "none" ? "" : Base64URL.encode([1, 2, 3]))
        #expect(throws: IDTokenError.unsupportedAlgorithm(alg)) { try JSONWebSignature(compact: token) }
    }

    @Test("a token naming a kid that no published key has finds no key")
    func unknownKidFindsNoKey() throws {
        let jws = try JSONWebSignature(compact: TestKeys.rsa.sign(Self.claims, header: ["kid": "rotated-away"]))
        #expect(jws.key(in: [try TestKeys.rsa.verificationKey(), try TestKeys.ec.verificationKey()]) == nil)
    }

    @Test("an RS256 token is never checked with an EC key, nor ES256 with an RSA key")
    func keyTypeMustMatchAlgorithm() throws {
        let jws = try JSONWebSignature(compact: TestKeys.ec.sign(Self.claims, header: ["kid": "rsa-1"]))
        #expect(jws.key(in: [try TestKeys.rsa.verificationKey()]) == nil)
        #expect(throws: IDTokenError.badSignature) { try jws.verify(with: try TestKeys.rsa.verificationKey()) }
    }

    @Test("malformed tokens are refused as malformed", arguments: ["", "a.b", "a.b.c.d", "eyJhbGciOiJSUzI1NiJ9.e30=.AAAA", "!!.e30.AAAA"])
    func malformedRefused(token: String) {
        #expect(throws: IDTokenError.self) { try JSONWebSignature(compact: token) }
    }

    @Test("a JWK for encryption, an EC point off the curve and an unknown key type are refused")
    func unusableKeysRefused() throws {
        var jwk = TestKeys.ec.jwk
        jwk["use"] = "enc"
        #expect(throws: IDTokenError.self) { try Self.key(jwk) }
        jwk = TestKeys.ec.jwk
        let xText = try #require(jwk["x"])
        var x = try #require(Base64URL.decode(xText))
        x[5] ^= 0x40
        jwk["x"] = Base64URL.encode(x)
        #expect(throws: IDTokenError.self) { try Self.key(jwk) }
        #expect(throws: IDTokenError.self) { try Self.key(["kty": "oct", "k": "c2VjcmV0"]) }
    }

    @Test("an RSA key shorter than 2048 bits and a P-256 key with a short coordinate are refused as unusable keys")
    func weakKeysRefused() throws {
        let short = TestSigningKey(.rsa, kid: "rsa-short", rsaBits: 1024)
        #expect(throws: IDTokenError.badKey("an RSA key shorter than 2048 bits")) { try Self.key(short.jwk) }
        var jwk = TestKeys.ec.jwk
        jwk["x"] = Base64URL.encode([UInt8](repeating: 1, count: 31))
        #expect(throws: IDTokenError.badKey("a P-256 key without 32-byte x and y")) { try Self.key(jwk) }
    }

    @Test("base64url decoding refuses padding and the standard alphabet's + and /")
    func base64URLIsStrict() {
        #expect(Base64URL.decode("AQID") == [1, 2, 3])
        #expect(Base64URL.decode("AQI") == [1, 2])
        #expect(Base64URL.decode("AQI=") == nil)
        #expect(Base64URL.decode("+/") == nil)
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("A") == nil)
    }

    private static func key(_ jwk: [String: String]) throws -> VerificationKey {
        try VerificationKey(JSONDecoder().decode(JSONWebKey.self, from: JSONSerialization.data(withJSONObject: jwk)))
    }
}
