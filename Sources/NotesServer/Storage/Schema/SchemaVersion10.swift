extension SchemaVersion {
    /// Version 10: browser sessions carried in a cookie.
    static let v10 = SchemaVersion(
        version: 10, name: "browser sessions carried in a cookie",
        sqlite: sqliteWebSessions,
        postgres: postgresWebSessions)

    /// A browser session is a row of `sessions` like any device's, told apart by the digest of
    /// its cookie secret (the cookie authenticates only the web pages, never `/v1/*`). Its
    /// refresh token is a random secret nobody is given, so it can never be refreshed through
    /// the API; it is listed, revoked and purged with the other sessions.
    private static let sqliteWebSessions = """
        ALTER TABLE sessions ADD COLUMN web_cookie_hash BLOB;
        CREATE UNIQUE INDEX sessions_web_cookie ON sessions(web_cookie_hash) WHERE web_cookie_hash IS NOT NULL;

        """

    /// Browser sessions: the cookie's hash on the session it belongs to.
    private static let postgresWebSessions = """
        ALTER TABLE sessions ADD COLUMN web_cookie_hash BYTEA;
        CREATE UNIQUE INDEX sessions_web_cookie ON sessions(web_cookie_hash) WHERE web_cookie_hash IS NOT NULL;

        """
}
