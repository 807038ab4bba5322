import NotesCore

/// Which entries a feed or list shows a client, from the `kinds=` it announces.
///
/// A client from before attachments announces nothing: it sees only notes whose path ends in
/// lowercase `.md`, the entries it can write into its folder (it would refuse any other path as
/// hostile). A client that announces `kinds=note,attachment` sees both kinds, with every path
/// the server accepts.
enum EntryKindFilter: Sendable, Equatable {
    /// No `kinds=`: notes ending in `.md` only.
    case legacyNotes
    /// The announced kinds.
    case kinds(Set<EntryKind>)

    /// Parses `kinds=note,attachment` (any order, at least one); nil when absent.
    /// - Throws: `EntryKindFilter.Invalid` for an unknown or empty kind.
    init(query: String?) throws(Invalid) {
        guard let query else {
            self = .legacyNotes
            return
        }
        var kinds = Set<EntryKind>()
        for name in query.split(separator: ",", omittingEmptySubsequences: false) {
            guard let kind = EntryKind(rawValue: String(name)) else { throw Invalid(value: query) }
            kinds.insert(kind)
        }
        self = .kinds(kinds)
    }

    struct Invalid: Error {
        let value: String
    }

    /// The SQL condition on a `notes` or `revisions` row (constant text: nothing of the query
    /// is interpolated).
    var sql: String { sql(table: nil) }

    /// The condition on the columns of `table` (an alias such as `n`), for a query that joins.
    func sql(table: String?) -> String {
        let prefix = table.map { $0 + "." } ?? ""
        return switch self {
        // `substr(path, length(path) - 2)`: the last three characters, case-sensitive, in both
        // dialects (SQLite's GLOB is not PostgreSQL's).
        case .legacyNotes: "(\(prefix)kind = 'note' AND substr(\(prefix)path, length(\(prefix)path) - 2) = '.md')"
        case .kinds(let kinds) where kinds.count == EntryKind.allCases.count: "TRUE"
        case .kinds(let kinds) where kinds == [.attachment]: "\(prefix)kind = 'attachment'"
        case .kinds: "\(prefix)kind = 'note'"
        }
    }
}
