extension SchemaVersion {
    /// Version 10: browser sessions carried in a cookie.
    static let v10 = SchemaVersion(version: 10, name: "browser sessions carried in a cookie", statements: webSessions)

    /// A browser session is a row of `sessions` like any device's, told apart by the digest of
    /// its cookie secret (the cookie authenticates only the web pages, never `/v1/*`). Its
    /// refresh token is a random secret nobody is given, so it can never be refreshed through
    /// the API; it is listed, revoked and purged with the other sessions.
    private static func webSessions(_ sql: SQLDialect) -> String {
        """
        ALTER TABLE sessions ADD COLUMN web_cookie_hash \(sql.bytes);
        CREATE UNIQUE INDEX sessions_web_cookie ON sessions(web_cookie_hash) WHERE web_cookie_hash IS NOT NULL;

        """
    }
}
