extension ServerSchema {
    /// A browser session is a row of `sessions` like any device's, told apart by the digest of
    /// its cookie secret (the cookie authenticates only the web pages, never `/v1/*`). Its
    /// refresh token is a random secret nobody is given, so it can never be refreshed through
    /// the API; it is listed, revoked and purged with the other sessions.
    static let webSessionsV10 = """
        ALTER TABLE sessions ADD COLUMN web_cookie_hash BLOB;
        CREATE UNIQUE INDEX sessions_web_cookie ON sessions(web_cookie_hash) WHERE web_cookie_hash IS NOT NULL;

        """
}
