/// A PostgreSQL row reads like a SQLite row.
extension PostgresRow: SQLRow {}

/// A PostgreSQL connection runs the stores' statements (`?` placeholders become `$n`).
extension PostgresConnection: SQLConnection {}
