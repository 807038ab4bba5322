import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Search on PostgreSQL (`simple` + `unaccent`, prefix `:*`, words ANDed) finds the same notes as
/// the SQLite backend's FTS5 index (`unicode61 remove_diacritics 2`) for a small multilingual
/// corpus: the same words, in any letter case and with or without accents, find the same notes.
@Suite("Search: PostgreSQL finds what SQLite finds", .needsPostgresCluster)
struct PostgresSearchParityTests {
    /// (number, path, content); notes 90 (deleted) and 91 (another user) must never be found.
    static let corpus: [(Int, String, String)] = [
        (1, "recettes/crème-brûlée.md", "La crème brûlée est un dessert. Temps: 45 minutes."),
        (2, "École/notes.md", "Réunion à l'École normale supérieure le lundi."),
        (3, "de/übung.md", "Übung macht den Meister. Große Freude."),
        (4, "es/niño.md", "El niño comió piña en Málaga."),
        (5, "ru/привет.md", "Привет, мир! Проверка поиска."),
        (6, "ja/日本.md", "日本語のテキスト and english words"),
        (7, "todo.md", "Buy milk; call example.com support about order 12345."),
        (8, "work/project-plan.md", "Project kickoff: planning, plans and planner."),
    ]

    /// Each query and the notes it must find (on both backends).
    static let queries: [(String, Set<Int>)] = [
        ("creme", [1]), ("BRÛLÉE dessert", [1]), ("crème-brûlée", [1]), ("ecole", [2]), ("reunion LUNDI", [2]),
        ("übung", [3]), ("UBUNG", [3]), ("große", [3]), ("nino malaga", [4]), ("пРИВЕТ", [5]), ("провер*", [5]),
        ("日本語のテキスト", [6]), ("日本*", [6]), ("example", [7]), ("12345", [7]), ("example.com", [7]),
        ("plans", [8]), ("plan*", [8]), ("kick", []), ("kick*", [8]), ("dessert milk", []), ("md", Set(1...8)),
        ("*", []), ("   ", []),
    ]

    static func insertCorpus<DB: SQLConnection>(_ db: DB, owner: Int64, other: Int64) throws {
        try db.transaction {
            var rev: Int64 = 0
            func insert(_ user: Int64, _ number: Int, _ path: String, _ content: String, deleted: Bool) throws {
                rev += 1
                try db.run("""
                    INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, user, Self.id(number), path, path.lowercased() + "#\(number)", content, SHA256.hex(of: content),
                           content.utf8.count, rev, 0, 0, deleted)
                // PostgreSQL's trigger queues the note; SQLite's writing code does it (version 19).
                if db.dialect == .sqlite && !deleted { try SQLiteSearchIndex.queueInserted(db, userID: user) }
            }
            for (number, path, content) in corpus { try insert(owner, number, path, content, deleted: false) }
            try insert(owner, 90, "old.md", "dessert plans École", deleted: true)
            try insert(other, 91, "theirs.md", "crème brûlée dessert plans École", deleted: false)
        }
    }

    static func id(_ number: Int) -> String {
        "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - String(number).count) + String(number)
    }

    static func number(_ id: String) -> Int {
        Int(id.suffix(12)) ?? -1
    }

    /// `NoteStore.search` on SQLite, copied: the user's queued notes indexed first, each word
    /// quoted for FTS5, `*` kept as a prefix mark.
    static func searchSQLite(_ db: Database, user: Int64, query: String) throws -> [(Int, String)] {
        try db.transaction { _ = try SQLiteSearchIndex.indexQueued(db, where: "user_id = ?", [user], limit: nil) }
        let terms = query.split(whereSeparator: { $0.isWhitespace }).prefix(16).compactMap { word -> String? in
            let prefix = word.hasSuffix("*")
            let bare = word.trimmingCharacters(in: CharacterSet(charactersIn: "*"))
            guard !bare.isEmpty else { return nil }
            return "\"" + bare.replacingOccurrences(of: "\"", with: "\"\"") + "\"" + (prefix ? "*" : "")
        }
        guard !terms.isEmpty else { return [] }
        return try db.query("""
            SELECT n.id, n.path, n.rev, snippet(notes_fts, 1, '**', '**', '…', 16)
            FROM notes_fts JOIN notes n ON n.nid = notes_fts.rowid
            WHERE notes_fts MATCH ? AND n.user_id = ? AND n.deleted = 0
            ORDER BY bm25(notes_fts) LIMIT ?
            """, [terms.joined(separator: " "), user, 50]) { row in (number(row.string(0)), row.string(3)) }
    }

    static func searchPostgres(_ db: PostgresConnection, user: Int64, query: String) throws -> [(Int, String)] {
        guard let words = PostgresSchema.searchWords(query) else { return [] }
        let terms = PostgresSearchSnippet.Terms(SearchTerm.terms(of: query))
        return try db.query(PostgresSchema.searchStatement, [words, user, 50]) { row in
            let marked = PostgresSearchSnippet.marked(row.string(3), terms: terms)
            return (number(row.string(0)), marked.replacingOccurrences(of: "\u{2}", with: "**").replacingOccurrences(of: "\u{3}", with: "**"))
        }
    }

    static func addUsers<DB: SQLConnection>(_ db: DB) throws -> (Int64, Int64) {
        let insert = "INSERT INTO users (username, username_key, password_hash, created_at) VALUES (?, ?, ?, ?) RETURNING id"
        let owner = try #require(try db.scalarInt(insert, ["owner", "owner", "x", 0]))
        let other = try #require(try db.scalarInt(insert, ["other", "other", "x", 0]))
        return (owner, other)
    }

    @Test("the same queries find the same notes on both backends, folded for case and accents, unstemmed")
    func sameNotesFound() async throws {
        let sqliteResults: [String: Set<Int>] = try withSQLite { db in
            let (owner, other) = try Self.addUsers(db)
            try Self.insertCorpus(db, owner: owner, other: other)
            return try Dictionary(uniqueKeysWithValues: Self.queries.map { query, _ in
                (query, Set(try Self.searchSQLite(db, user: owner, query: query).map(\.0)))
            })
        }
        let postgresResults: [String: Set<Int>] = try await withPostgresDatabase { database in
            let db = try database.migrated()
            defer { db.close() }
            let (owner, other) = try Self.addUsers(db)
            try Self.insertCorpus(db, owner: owner, other: other)
            return try Dictionary(uniqueKeysWithValues: Self.queries.map { query, _ in
                (query, Set(try Self.searchPostgres(db, user: owner, query: query).map(\.0)))
            })
        }
        for (query, expected) in Self.queries {
            #expect(sqliteResults[query] == expected, "SQLite, \"\(query)\"")
            #expect(postgresResults[query] == expected, "PostgreSQL, \"\(query)\"")
        }
    }

    @Test("a PostgreSQL snippet is the SQLite one: the same text, cut at the same words, with the same words marked")
    func snippetsMatchSQLite() async throws {
        let queries = ["NINO malaga", "pin*", "café"]
        let sqlite: [[String]] = try withSQLite { db in
            let (owner, other) = try Self.addUsers(db)
            try Self.insertCorpus(db, owner: owner, other: other)
            return try queries.map { try Self.searchSQLite(db, user: owner, query: $0).map(\.1).sorted() }
        }
        try await withPostgresDatabase { database in
            let db = try database.migrated()
            defer { db.close() }
            let (owner, other) = try Self.addUsers(db)
            try Self.insertCorpus(db, owner: owner, other: other)
            let hits = try Self.searchPostgres(db, user: owner, query: "NINO malaga")
            #expect(hits.map(\.0) == [4])
            #expect(hits.first?.1.hasPrefix("El **niño** comió piña en **Málaga**") == true, "\(hits)")
            for (query, expected) in zip(queries, sqlite) {
                #expect(try Self.searchPostgres(db, user: owner, query: query).map(\.1).sorted() == expected, "\(query)")
            }
        }
    }

    @Test("search terms are data: quotes, operators and tsquery syntax in a query find nothing odd and never fail")
    func queryTextIsData() async throws {
        try await withPostgresDatabase { database in
            let db = try database.migrated()
            defer { db.close() }
            let (owner, other) = try Self.addUsers(db)
            try Self.insertCorpus(db, owner: owner, other: other)
            for hostile in ["'", "dessert' | 'milk", "!dessert", "dessert & milk", "(", "a:*B", "\\", "\"", "<->", "*dessert*"] {
                let hits = try Self.searchPostgres(db, user: owner, query: hostile)
                #expect(hits.allSatisfy { $0.0 != 90 && $0.0 != 91 }, "\(hostile)")
            }
            #expect(try Self.searchPostgres(db, user: owner, query: "dessert' | 'milk").isEmpty, "not an OR")
        }
    }
}
