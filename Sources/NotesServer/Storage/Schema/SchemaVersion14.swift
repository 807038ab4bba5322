extension SchemaVersion {
    /// Version 14 (PostgreSQL only): request rates shared among the servers. SQLite's version 14 is
    /// empty: one SQLite server keeps its request rates in memory.
    static let v14 = SchemaVersion(version: 14, name: "request rates shared among the servers", sqlite: "", postgres: postgresRateUsage)

    /// What each server admitted per client address, exchanged about once a second
    /// (`SharedRateLedger`); rows older than two minutes are deleted as servers meet them.
    private static let postgresRateUsage = """
        CREATE TABLE rate_usage (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            limiter TEXT NOT NULL,
            server TEXT NOT NULL,
            address TEXT NOT NULL,
            count INTEGER NOT NULL,
            at BIGINT NOT NULL
        );
        CREATE INDEX rate_usage_at ON rate_usage(at);

        """
}
