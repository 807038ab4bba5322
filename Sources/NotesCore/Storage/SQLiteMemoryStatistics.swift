import CSQLite

/// SQLite's process-wide settings the server makes before it opens any database.
public enum SQLiteMemoryStatistics {
    /// Turns off SQLite's count of the memory it holds (`SQLITE_CONFIG_MEMSTATUS`), which takes
    /// a global mutex around every allocation and free: on a 10,000-note upload about 900,000
    /// lock and unlock pairs, 2% of the server's CPU (perf). Nothing in the server reads the
    /// counts (`sqlite3_memory_used`, a soft heap limit). Must run before SQLite's first use;
    /// returns whether SQLite took the setting (false after a database was opened).
    @discardableResult
    public static func turnOff() -> Bool {
        notes_sqlite_memory_statistics_off() == SQLITE_OK
    }
}
