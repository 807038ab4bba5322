import Foundation
import NotesTestSupport
import Testing
@testable import NotesServer

/// Which account a sign-in with a provider reaches: the linked one, a new one only when sign-up
/// is allowed, and an existing one by email only when the operator trusts verified email.
@Suite("OIDC: identities and accounts")
struct OIDCIdentityPolicyTests {
    static func provider(signUp: Bool = true, trustEmail: Bool = false, id: String = "kc") -> OIDCProviderSettings {
        OIDCProviderSettings(id: id, issuer: "https://\(id).example", clientID: "notes", clientSecret: nil, displayName: id,
                             allowSignUp: signUp, trustVerifiedEmail: trustEmail, timeoutSeconds: 5, scopes: ["openid"])
    }

    static func claims(_ sub: String, issuer: String = "https://kc.example", _ extra: [String: Any] = [:]) throws -> IDTokenClaims {
        var object: [String: Any] = ["iss": issuer, "sub": sub, "aud": "notes", "exp": 2_000_000_000, "iat": 1_700_000_000]
        object.merge(extra) { _, new in new }
        return try IDTokenClaims.decode(Array(JSONSerialization.data(withJSONObject: object)))
    }

    static func withStores(_ body: (IdentityStore, UserStore) throws -> Void) throws {
        let directory = try TemporaryDirectory("notes-oidc-db")
        defer { directory.remove() }
        let database = ServerDatabase.sqlite(try openDatabase(at: directory.appending("notes.sqlite").path))
        try body(IdentityStore(database: database, clock: ServerClock()), UserStore(database: database, clock: ServerClock()))
    }

    @Test("a first sign-in creates an account named after preferred_username, made unique; the next one finds it again")
    func signUpNamesAccounts() throws {
        try Self.withStores { identities, users in
            _ = try users.create(username: "alice", passwordHash: "x")
            let first = try identities.account(for: try Self.claims("s1", ["preferred_username": "Alice"]), provider: Self.provider())
            #expect(first.username == "Alice-2" && !UserStore.hasPassword(first))
            let again = try identities.account(for: try Self.claims("s1", ["preferred_username": "renamed"]), provider: Self.provider())
            #expect(again.id == first.id)
            let byEmail = try identities.account(for: try Self.claims("s2", ["email": "bob.smith@example.org"]), provider: Self.provider())
            #expect(byEmail.username == "bob.smith")
            let odd = try identities.account(for: try Self.claims("s3", ["preferred_username": "a b/c"]), provider: Self.provider())
            #expect(odd.username == "abc")
        }
    }

    @Test("with sign-up off, an unlinked identity is refused; an admin's link lets it in")
    func signUpOff() throws {
        try Self.withStores { identities, users in
            let ada = try users.create(username: "ada", passwordHash: "x")
            #expect(throws: IdentityError.noAccount) { try identities.account(for: try Self.claims("s1"), provider: Self.provider(signUp: false)) }
            try identities.link(userID: ada.id, provider: "kc", issuer: "https://kc.example", subject: "s1")
            #expect(try identities.account(for: try Self.claims("s1"), provider: Self.provider(signUp: false)).id == ada.id)
            #expect(throws: IdentityError.alreadyLinked(to: "ada")) {
                try identities.link(userID: ada.id, provider: "kc", issuer: "https://kc.example", subject: "s1")
            }
            try identities.unlink(userID: ada.id, issuer: "https://kc.example", subject: "s1")
            #expect(throws: IdentityError.noAccount) { try identities.account(for: try Self.claims("s1"), provider: Self.provider(signUp: false)) }
        }
    }

    @Test("an email joins an existing account only when verified and trusted for that provider")
    func emailJoinsOnlyWhenVerifiedAndTrusted() throws {
        try Self.withStores { identities, _ in
            let original = try identities.account(for: try Self.claims("s1", ["email": "Zoe@example.org", "email_verified": true]),
                                                  provider: Self.provider())
            let google = "https://google.example"
            let untrusted = try identities.account(for: try Self.claims("g1", issuer: google, ["email": "zoe@example.org", "email_verified": true]),
                                                   provider: Self.provider(id: "google"))
            #expect(untrusted.id != original.id, "not trusted: a new account")
            let unverified = try identities.account(for: try Self.claims("g2", issuer: google, ["email": "zoe@example.org"]),
                                                    provider: Self.provider(trustEmail: true, id: "google"))
            #expect(unverified.id != original.id, "not verified: a new account")
            let joined = try identities.account(for: try Self.claims("g3", issuer: google, ["email": "zoe@example.org", "email_verified": true]),
                                                provider: Self.provider(trustEmail: true, id: "google"))
            #expect(joined.id == original.id)
        }
    }
}
