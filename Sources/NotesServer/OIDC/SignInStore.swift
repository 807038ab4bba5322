import NotesCore

/// A sign-in sent to a provider, as its callback finds it again by `state`.
struct PendingSignIn: Sendable {
    let provider: String
    let nonce: String
    let verifier: String
    let clientRedirectURI: String
    let clientCodeChallenge: String
    let clientState: String
}

/// Why a one-time login code was refused (RFC 6749 §5.2 `invalid_grant`).
enum LoginCodeError: Error, Sendable, Equatable {
    case invalidGrant(String)
}

/// Sign-in state between the steps of a browser sign-in, and the one-time codes that end it:
/// the owner of `sign_in_states` and `login_codes`. Both are used once (deleted as they are
/// read) and expire soon; expired rows are deleted whenever a new one is written.
struct SignInStore: Sendable {
    let database: ServerDatabase
    let clock: ServerClock
    /// From the redirect to the provider to its callback: time to type a password and a second factor.
    var stateLifetimeSeconds = 600
    /// From the callback to the client's exchange: the client is waiting on its loopback.
    var codeLifetimeSeconds = 60

    private static let secretsContext = "notes sign-in state v1"

    /// Records a sign-in about to go to `provider` and returns the `state`, `nonce` and PKCE
    /// verifier to send (the verifier as its challenge). Only digests and a box sealed under
    /// the state are stored.
    func begin(provider: String, clientRedirectURI: String, clientCodeChallenge: String,
               clientState: String) throws -> (state: String, nonce: String, verifier: String) {
        let state = Base64URL.encode(SecureRandom.bytes(count: 32))
        let nonce = Base64URL.encode(SecureRandom.bytes(count: 32))
        let verifier = PKCE.makeVerifier()
        let box = SecretBox.seal(Array((nonce + " " + verifier).utf8), key: SecretBox.key(fromSecret: state, context: Self.secretsContext))
        let now = clock.now()
        try database.write { db in
            try db.run("DELETE FROM sign_in_states WHERE expires_at <= ?", now)
            try db.run("""
                INSERT INTO sign_in_states (state_hash, provider, secrets_box, client_redirect_uri, client_code_challenge,
                    client_state, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, SHA256.digest(of: Array(state.utf8)), provider, box, clientRedirectURI, clientCodeChallenge, clientState,
                now, now + Int64(stateLifetimeSeconds) * 1000)
        }
        return (state, nonce, verifier)
    }

    /// The sign-in that sent `state`, removed so it cannot be used again; `nil` when no live
    /// sign-in has it (forged, already used, or expired).
    func take(state: String) throws -> PendingSignIn? {
        guard !state.isEmpty, state.utf8.count <= 128 else { return nil }
        let digest = SHA256.digest(of: Array(state.utf8))
        let now = clock.now()
        let row = try database.write { db in
            let row = try db.first("""
                SELECT provider, secrets_box, client_redirect_uri, client_code_challenge, client_state, expires_at
                FROM sign_in_states WHERE state_hash = ?
                """, [digest]) { ($0.string(0), $0.bytes(1), $0.string(2), $0.string(3), $0.string(4), $0.int64(5)) }
            if row != nil { try db.run("DELETE FROM sign_in_states WHERE state_hash = ?", digest) }
            return row
        }
        guard let row, row.5 > now,
              let plain = SecretBox.open(row.1, key: SecretBox.key(fromSecret: state, context: Self.secretsContext)) else { return nil }
        let parts = String(decoding: plain, as: UTF8.self).split(separator: " ")
        guard parts.count == 2 else { return nil }
        return PendingSignIn(provider: row.0, nonce: String(parts[0]), verifier: String(parts[1]),
                             clientRedirectURI: row.2, clientCodeChallenge: row.3, clientState: row.4)
    }

    /// A one-time code for `userID`, redeemable once, soon, by whoever holds the verifier of
    /// `codeChallenge`.
    func issueCode(userID: Int64, codeChallenge: String, redirectURI: String) throws -> String {
        let code = SecureRandom.token(prefix: "nlc_")
        let now = clock.now()
        try database.write { db in
            try db.run("DELETE FROM login_codes WHERE expires_at <= ?", now)
            try db.run("""
                INSERT INTO login_codes (code_hash, user_id, code_challenge, redirect_uri, created_at, expires_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """, SHA256.digest(of: Array(code.utf8)), userID, codeChallenge, redirectURI, now, now + Int64(codeLifetimeSeconds) * 1000)
        }
        return code
    }

    /// Spends `code` and returns its user. The code is gone after the first attempt, right or
    /// wrong, so a stolen code cannot be tried against many verifiers.
    /// - Throws: `LoginCodeError.invalidGrant` for an unknown, used or expired code, or a
    ///   verifier that does not answer its challenge.
    func redeem(code: String, verifier: String, redirectURI: String?) throws -> Int64 {
        guard code.hasPrefix("nlc_"), code.utf8.count <= 128 else { throw LoginCodeError.invalidGrant("The code is not valid.") }
        let digest = SHA256.digest(of: Array(code.utf8))
        let now = clock.now()
        let row = try database.write { db in
            let row = try db.first("SELECT user_id, code_challenge, redirect_uri, expires_at FROM login_codes WHERE code_hash = ?",
                                   [digest]) { ($0.int64(0), $0.string(1), $0.string(2), $0.int64(3)) }
            if row != nil { try db.run("DELETE FROM login_codes WHERE code_hash = ?", digest) }
            return row
        }
        guard let row else { throw LoginCodeError.invalidGrant("The code is not valid, or was already used.") }
        guard row.3 > now else { throw LoginCodeError.invalidGrant("The code has expired; sign in again.") }
        guard PKCE.verifies(verifier, challenge: row.1) else { throw LoginCodeError.invalidGrant("The code verifier does not match.") }
        if let redirectURI, redirectURI != row.2 { throw LoginCodeError.invalidGrant("The redirect URI does not match.") }
        return row.0
    }
}
