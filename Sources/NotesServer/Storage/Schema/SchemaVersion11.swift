extension SchemaVersion {
    /// Version 11: sign-in with identity providers (OpenID Connect).
    static let v11 = SchemaVersion(version: 11, name: "identities at OpenID Connect providers, sign-in state, one-time login codes",
                                   statements: signIn)

    /// Sign-in with identity providers (OpenID Connect). Everything a sign-in needs between its
    /// steps lives here rather than in a process, so the provider's redirect may reach any of
    /// several servers sharing the database. Secrets are stored as digests or sealed: a sign-in's
    /// nonce and PKCE verifier are sealed under a key derived from its `state`, which only the
    /// browser holds, and one-time codes are kept as SHA-256 digests.
    private static func signIn(_ sql: SQLDialect) -> String {
        """
        -- An account at a provider (issuer, subject) belongs to one Notes account.
        CREATE TABLE identities (
            id \(sql.rowID),
            user_id \(sql.int64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            provider TEXT NOT NULL,
            issuer TEXT NOT NULL,
            subject TEXT NOT NULL,
            -- Kept only when the provider said it is verified: used to join accounts when the
            -- operator trusts verified email for that provider.
            verified_email TEXT,
            created_at \(sql.int64) NOT NULL,
            last_used_at \(sql.int64),
            UNIQUE (issuer, subject)
        );
        CREATE INDEX identities_user ON identities(user_id);
        CREATE INDEX identities_email ON identities(verified_email) WHERE verified_email IS NOT NULL;

        -- A sign-in sent to a provider and not back yet (used once, then deleted).
        CREATE TABLE sign_in_states (
            state_hash \(sql.bytes) PRIMARY KEY,
            provider TEXT NOT NULL,
            -- nonce and PKCE verifier, sealed under a key derived from the state.
            secrets_box \(sql.bytes) NOT NULL,
            -- The command-line client's loopback redirect, PKCE challenge and state (RFC 8252).
            client_redirect_uri TEXT NOT NULL,
            client_code_challenge TEXT NOT NULL,
            client_state TEXT NOT NULL,
            created_at \(sql.int64) NOT NULL,
            expires_at \(sql.int64) NOT NULL
        )\(sql.withoutRowID);
        CREATE INDEX sign_in_states_expiry ON sign_in_states(expires_at);

        -- One-time codes handed to a client's loopback redirect, exchanged for a session.
        CREATE TABLE login_codes (
            code_hash \(sql.bytes) PRIMARY KEY,
            user_id \(sql.int64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            code_challenge TEXT NOT NULL,
            redirect_uri TEXT NOT NULL,
            created_at \(sql.int64) NOT NULL,
            expires_at \(sql.int64) NOT NULL
        )\(sql.withoutRowID);
        CREATE INDEX login_codes_expiry ON login_codes(expires_at);

        """
    }
}
