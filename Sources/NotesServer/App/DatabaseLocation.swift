import NotesCommandLine

/// What `--db` names: a SQLite file, or a PostgreSQL database by its URL.
///
/// Decided by the scheme first, before anything touches the filesystem: SQLite would happily
/// create a file literally named `postgres:/db.example/notes`, and a server would then run on an
/// empty database nobody meant. A value with any other `scheme://` is refused for the same
/// reason (a file of such a name is still reachable as `./NAME`).
enum DatabaseLocation: Equatable {
    case sqlite(path: String)
    case postgres(PostgresURL)

    /// Reads a `--db` value.
    /// - Throws: `UsageError` for a malformed PostgreSQL URL, or another scheme; the message
    ///   never repeats the value (it may hold a password).
    init(_ value: String) throws(UsageError) {
        if PostgresURL.isPostgresURL(value) {
            do {
                self = .postgres(try PostgresURL(value))
            } catch {
                throw UsageError("--db: \(error)")
            }
        } else if let scheme = Self.urlScheme(of: value) {
            throw UsageError("--db takes a SQLite file path or a postgres:// URL, not a \(scheme):// URL (a file of such a name: write ./NAME)")
        } else {
            self = .sqlite(path: value)
        }
    }

    /// Refuses, before a command runs, a malformed `--db` (a usage error: exit 2).
    static func validate(_ value: String?) throws(UsageError) {
        guard let value else { return }
        _ = try DatabaseLocation(value)
    }

    /// How logs and messages name the database: the path, or the URL without its password.
    var displayName: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let url): url.description
        }
    }

    /// The scheme of a `scheme://...` value (RFC 3986 letters), nil for anything else.
    private static func urlScheme(of value: String) -> String? {
        guard let range = value.range(of: "://") else { return nil }
        let scheme = value[..<range.lowerBound]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
              scheme.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) })
        else { return nil }
        return String(scheme)
    }
}
