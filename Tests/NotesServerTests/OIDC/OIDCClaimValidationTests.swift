import Foundation
import Testing
@testable import NotesServer

/// The claims of a correctly signed ID token must still be for this server, this sign-in and now.
@Suite("OIDC: ID token claim validation")
struct OIDCClaimValidationTests {
    static let now: Int64 = 1_800_000_000_000
    let validator = IDTokenValidator(issuer: "https://id.example", clientID: "notes")

    func claims(_ changes: [String: Any?] = [:]) throws -> IDTokenClaims {
        var object: [String: Any] = ["iss": "https://id.example", "sub": "alice", "aud": "notes",
                                     "exp": Self.now / 1000 + 300, "iat": Self.now / 1000 - 5, "nonce": "n-1"]
        for (name, value) in changes {
            object[name] = value
        }
        return try IDTokenClaims.decode(Array(JSONSerialization.data(withJSONObject: object)))
    }

    func validate(_ claims: IDTokenClaims, nonce: String = "n-1", at now: Int64 = Self.now) throws(IDTokenError) {
        try validator.validate(claims, nonce: nonce, nowMilliseconds: now)
    }

    @Test("a token for this client, from this issuer, with this nonce, valid now passes")
    func validPasses() throws {
        try validate(try claims())
        try validate(try claims(["aud": ["notes", "other"], "azp": "notes"]))
    }

    @Test("another issuer is refused")
    func wrongIssuer() throws {
        #expect(throws: IDTokenError.wrongIssuer) { try validate(try claims(["iss": "https://evil.example"])) }
        #expect(throws: IDTokenError.wrongIssuer) { try validate(try claims(["iss": "https://id.example/"])) }
    }

    @Test("a token for another client is refused, also among several audiences without azp or with another azp")
    func wrongAudience() throws {
        #expect(throws: IDTokenError.wrongAudience) { try validate(try claims(["aud": "someone-else"])) }
        #expect(throws: IDTokenError.wrongAudience) { try validate(try claims(["aud": ["someone-else"]])) }
        #expect(throws: IDTokenError.wrongAudience) { try validate(try claims(["aud": ["notes", "other"]])) }
        #expect(throws: IDTokenError.wrongAudience) { try validate(try claims(["azp": "other"])) }
    }

    @Test("an expired token is refused once the allowed skew has passed, not before")
    func expiry() throws {
        let token = try claims(["exp": Self.now / 1000])
        try validate(token, at: Self.now + 59_000)
        #expect(throws: IDTokenError.expired) { try validate(token, at: Self.now + 60_000) }
    }

    @Test("a token issued or valid only in the future (beyond the skew) is refused")
    func notYetValid() throws {
        try validate(try claims(["iat": Self.now / 1000 + 30]))
        #expect(throws: IDTokenError.notYetValid) { try validate(try claims(["iat": Self.now / 1000 + 120])) }
        #expect(throws: IDTokenError.notYetValid) { try validate(try claims(["nbf": Self.now / 1000 + 120])) }
    }

    @Test("a missing or different nonce is refused")
    func nonce() throws {
        #expect(throws: IDTokenError.wrongNonce) { try validate(try claims(), nonce: "n-2") }
        #expect(throws: IDTokenError.wrongNonce) { try validate(try claims(["nonce": nil])) }
    }

    @Test("a token without sub or exp, or with a sub of the wrong type, is refused as missing that claim")
    func missingClaims() throws {
        #expect(throws: IDTokenError.missingClaim("sub")) { try validate(try claims(["sub": nil])) }
        #expect(throws: IDTokenError.missingClaim("exp")) { try validate(try claims(["exp": nil])) }
        #expect(throws: IDTokenError.missingClaim("sub")) { try validate(try claims(["sub": 42])) }
    }

    @Test("email_verified counts only when true (or the string \"true\")")
    func emailVerified() throws {
        #expect(try claims(["email_verified": true]).emailVerified)
        #expect(try claims(["email_verified": "true"]).emailVerified)
        #expect(try !claims(["email_verified": "yes"]).emailVerified)
        #expect(try !claims().emailVerified)
    }
}
