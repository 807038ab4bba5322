import Foundation
import NotesCore

/// The copy `migrate-data` runs inside its two transactions: SQLite read in one snapshot,
/// PostgreSQL written in one transaction, tables in order of their references.
struct DataMigration {
    /// A table copied row by row, in the order of `orderBy` (its primary key).
    struct Table {
        let name: String
        let orderBy: String
    }

    /// What is copied, parents before children. Columns are the SQLite table's, by name.
    static let copiedTables: [Table] = [
        Table(name: "users", orderBy: "id"),
        Table(name: "sessions", orderBy: "id"),
        Table(name: "spent_refresh_tokens", orderBy: "hash"),
        Table(name: "tokens", orderBy: "id"),
        Table(name: "notes", orderBy: "nid"),
        Table(name: "revisions", orderBy: "user_id, note_id, rev"),
        Table(name: "rendered_html", orderBy: "nid"),
        Table(name: "note_tags", orderBy: "nid, tag_key"),
        Table(name: "tag_marks", orderBy: "user_id"),
        Table(name: "contents", orderBy: "user_id, hash"),
        Table(name: "content_holds", orderBy: "user_id, hash"),
        Table(name: "publications", orderBy: "id"),
        Table(name: "identities", orderBy: "id"),
        Table(name: "spaces", orderBy: "id"),
        Table(name: "space_members", orderBy: "space_id, user_id"),
        Table(name: "dav_folders", orderBy: "user_id, space, path"),
        Table(name: "dav_properties", orderBy: "user_id, space, path, namespace, name"),
    ]

    /// What is left behind on purpose, and why: state that lives minutes, restarted by its owner.
    static let skippedTables: [(name: String, reason: String)] = [
        ("uploads", "uploads in progress (their chunks too): the client starts them again"),
        ("sign_in_states", "provider sign-ins under way (10 minutes)"),
        ("login_codes", "one-time login codes (a minute)"),
        ("device_codes", "device sign-ins under way (15 minutes)"),
        ("content_store_location", "where migrate-content moved the contents: migrate-data copies them into PostgreSQL itself"),
        ("login_unlocks", "accounts unlocked by an administrator (they clear throttle counts the new servers do not have)"),
    ]

    /// SQLite's own machinery, with no table of the same meaning on PostgreSQL.
    static func isSQLiteMachinery(_ table: String) -> Bool {
        table.hasPrefix("sqlite_") || table.hasPrefix("notes_fts") || table == "search_queue"
    }

    /// Rows per INSERT, and bytes of values, whichever comes first: bounded memory, few round trips.
    static let batchRows = 500
    static let batchBytes = 4 << 20

    struct Report {
        var tables: [(name: String, rows: Int)] = []
        var contents = 0
        var contentBytes = 0
    }

    let sqlite: Database
    let contents: FileBlobStore
    let postgres: PostgresConnection
    let target: PostgresURL

    /// Both schemas must be at one version (a version means the same on both backends), and
    /// every SQLite table must be one this command knows to copy or to leave.
    func checkVersions() throws {
        let sqliteVersion = Int(try sqlite.scalarInt("PRAGMA user_version") ?? 0)
        let postgresVersion = try PostgresSchema.version(postgres)
        guard sqliteVersion == postgresVersion else {
            throw AdminError("the source is at schema version \(sqliteVersion) and the target at \(postgresVersion); "
                             + "both must be at the same version (run this program's `serve` on the older one once, or upgrade the program)")
        }
        let known = Set(Self.copiedTables.map(\.name) + Self.skippedTables.map(\.name))
        let tables = try sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { $0.string(0) }
        if let unknown = tables.first(where: { !known.contains($0) && !Self.isSQLiteMachinery($0) }) {
            throw AdminError("the source has a table \(unknown) that migrate-data does not know how to copy; upgrade the program")
        }
    }

    /// Copies, resets the identity sequences, verifies; the caller's transaction commits.
    func run() throws -> Report {
        // Two migrations at once into one database: the second waits here, then finds it full.
        try postgres.run("SELECT pg_advisory_xact_lock(?)", PostgresSchema.migrationLockKey)
        try requireEmptyTarget()
        var report = Report()
        let storedAt = Int64(Date().timeIntervalSince1970 * 1000)
        for table in Self.copiedTables {
            let rows = try copy(table) { row, columns in
                guard table.name == "contents" else { return }
                try copyContent(row, columns: columns, storedAt: storedAt, into: &report)
            }
            report.tables.append((table.name, rows))
        }
        try resetIdentitySequences()
        try verify(report)
        return report
    }

    private func requireEmptyTarget() throws {
        for table in Self.copiedTables.map(\.name) + ["content_chunks", "upload_chunks", "uploads"] {
            // The name comes from the fixed list above, never from input.
            let rows = try postgres.scalarInt("SELECT count(*) FROM (SELECT 1 FROM \(Self.quoted(table)) LIMIT 1) AS t") ?? 0
            if rows > 0 {
                throw AdminError("the target database \(target) is not empty (its table \(table) has rows); "
                                 + "migrate-data only fills an empty database: create a new one (createdb) and pass its URL")
            }
        }
    }

    /// Streams `table` from SQLite into PostgreSQL in batches; `each` sees every row before it is
    /// inserted. Returns the number of rows.
    private func copy(_ table: Table, each: (_ row: [SQLValue], _ columns: [String]) throws -> Void) throws -> Int {
        let columns = try sqlite.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [table.name]) { $0.string(0) }
        let targetColumns = Set(try postgres.query("""
            SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?
            """, [table.name]) { $0.string(0) })
        if let missing = columns.first(where: { !targetColumns.contains($0) }) {
            throw AdminError("the target's table \(table.name) has no column \(missing), though both schemas claim one version")
        }
        let columnList = columns.map(Self.quoted).joined(separator: ", ")
        let select = try sqlite.statement("SELECT \(columnList) FROM \(Self.quoted(table.name)) ORDER BY \(table.orderBy)")
        var batch: [SQLValue] = []
        var batchBytes = 0
        var rows = 0
        func flush() throws {
            guard !batch.isEmpty else { return }
            let count = batch.count / columns.count
            let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
            let insert = "INSERT INTO \(Self.quoted(table.name)) (\(columnList)) VALUES "
                + Array(repeating: row, count: count).joined(separator: ", ")
            _ = try postgres.result(insert, batch)
            batch.removeAll(keepingCapacity: true)
            batchBytes = 0
        }
        while try select.step() {
            let values = (0..<columns.count).map { select.value($0) }
            try each(values, columns)
            batch += values
            batchBytes += values.reduce(0) { $0 + Self.size(of: $1) }
            rows += 1
            if batch.count / columns.count >= Self.batchRows || batchBytes >= Self.batchBytes { try flush() }
        }
        try flush()
        return rows
    }

    /// Stores the bytes of one `contents` row into PostgreSQL before the row itself goes in
    /// (the database accepts the row only then), checking them against the row's hash and size.
    private func copyContent(_ row: [SQLValue], columns: [String], storedAt: Int64, into report: inout Report) throws {
        guard let userColumn = columns.firstIndex(of: "user_id"), let hashColumn = columns.firstIndex(of: "hash"),
              let sizeColumn = columns.firstIndex(of: "size"),
              case .integer(let userID) = row[userColumn], case .text(let hash) = row[hashColumn],
              case .integer(let size) = row[sizeColumn] else {
            throw AdminError("the source's contents table has a row without user_id, hash and size")
        }
        guard let file = try contents.openContent(userID: userID, hash: hash) else {
            throw AdminError("the content \(hash) of user \(userID) is missing from \(contents.root); the source is damaged, nothing was copied")
        }
        defer { file.close() }
        let stored = try PostgresBlobStore.storeContent(postgres, userID: userID, hash: hash, readingFrom: file.descriptor, storedAt: storedAt)
        guard stored.digest == hash, stored.size == Int(size) else {
            throw AdminError("the content \(hash) of user \(userID) in \(contents.root) is damaged (\(stored.size) bytes hashing to "
                             + "\(stored.digest), for \(size) bytes named \(hash)); nothing was copied")
        }
        report.contents += 1
        report.contentBytes += stored.size
    }

    /// Moves every identity sequence past the highest id copied, so the next row PostgreSQL
    /// numbers itself does not collide with a copied one.
    private func resetIdentitySequences() throws {
        for table in Self.copiedTables {
            let identities = try postgres.query("""
                SELECT column_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = ? AND is_identity = 'YES'
                """, [table.name]) { $0.string(0) }
            for column in identities {
                try postgres.run("""
                    SELECT setval(pg_get_serial_sequence(?, ?), coalesce((SELECT max(\(Self.quoted(column))) FROM \(Self.quoted(table.name))), 0) + 1, false)
                    """, table.name, column)
            }
        }
    }

    /// Row counts of every table on both sides, then every content read back and hashed.
    private func verify(_ report: Report) throws {
        for table in Self.copiedTables {
            let source = try sqlite.scalarInt("SELECT count(*) FROM \(Self.quoted(table.name))") ?? -1
            let copied = try postgres.scalarInt("SELECT count(*) FROM \(Self.quoted(table.name))") ?? -2
            guard source == copied else {
                throw AdminError("verification failed: \(table.name) has \(source) rows in the source and \(copied) in the target; nothing was copied")
            }
        }
        let stored = try postgres.query("SELECT user_id, hash, size FROM contents ORDER BY user_id, hash") {
            (userID: $0.int64(0), hash: $0.string(1), size: $0.int(2))
        }
        for content in stored {
            let read = try PostgresBlobStore.digest(postgres, userID: content.userID, hash: content.hash)
            guard let read, read.digest == content.hash, read.size == content.size else {
                throw AdminError("verification failed: the content \(content.hash) of user \(content.userID) does not read back as stored; nothing was copied")
            }
        }
        guard stored.count == report.contents else {
            throw AdminError("verification failed: \(report.contents) contents copied, \(stored.count) in the target; nothing was copied")
        }
    }

    /// An identifier from this program's own schema, quoted for SQL on either database.
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func size(of value: SQLValue) -> Int {
        switch value {
        case .text(let text): text.utf8.count
        case .blob(let bytes): bytes.count
        default: 8
        }
    }
}
