extension ServerSchema {
    /// Sign-in with identity providers (OpenID Connect). Everything a sign-in needs between its
    /// steps lives here rather than in a process, so the provider's redirect may reach any of
    /// several servers sharing the database. Secrets are stored as digests or sealed: a sign-in's
    /// nonce and PKCE verifier are sealed under a key derived from its `state`, which only the
    /// browser holds, and one-time codes are kept as SHA-256 digests.
    static let signInV11 = """
        -- An account at a provider (issuer, subject) belongs to one Notes account.
        CREATE TABLE identities (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            provider TEXT NOT NULL,
            issuer TEXT NOT NULL,
            subject TEXT NOT NULL,
            -- Kept only when the provider said it is verified: used to join accounts when the
            -- operator trusts verified email for that provider.
            verified_email TEXT,
            created_at INTEGER NOT NULL,
            last_used_at INTEGER,
            UNIQUE (issuer, subject)
        );
        CREATE INDEX identities_user ON identities(user_id);
        CREATE INDEX identities_email ON identities(verified_email) WHERE verified_email IS NOT NULL;

        -- A sign-in sent to a provider and not back yet (used once, then deleted).
        CREATE TABLE sign_in_states (
            state_hash BLOB PRIMARY KEY,
            provider TEXT NOT NULL,
            -- nonce and PKCE verifier, sealed under a key derived from the state.
            secrets_box BLOB NOT NULL,
            -- The command-line client's loopback redirect, PKCE challenge and state (RFC 8252).
            client_redirect_uri TEXT NOT NULL,
            client_code_challenge TEXT NOT NULL,
            client_state TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX sign_in_states_expiry ON sign_in_states(expires_at);

        -- One-time codes handed to a client's loopback redirect, exchanged for a session.
        CREATE TABLE login_codes (
            code_hash BLOB PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            code_challenge TEXT NOT NULL,
            redirect_uri TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX login_codes_expiry ON login_codes(expires_at);

        """
}
