import NotesTestSupport
import Testing

extension Trait where Self == ConditionTrait {
    /// For a test that reads or damages the server's SQLite file itself (its bytes, its
    /// write-ahead log, its page limit, an older schema): it runs on the SQLite pass and is
    /// skipped, with the reason, on the PostgreSQL pass (`NOTES_TEST_BACKEND=postgres`).
    static var sqliteOnly: Self {
        .enabled(if: TestBackend.current == .sqlite, Comment(rawValue: TestBackend.sqliteOnlyReason))
    }
}
