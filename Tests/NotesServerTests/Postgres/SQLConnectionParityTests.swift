import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The seam the stores will be ported through: the same statements, copied from today's stores
/// (UserStore, SessionStore, PersonalTokenStore, NoteStore and its feeds), run through
/// `SQLConnection` on SQLite (`Database`) and on PostgreSQL (`PostgresConnection`) against each
/// backend's migrated schema, give the same answers.
/// (Without a cluster both cases are skipped: the SQLite answers alone prove nothing here.)
@Suite("One set of statements, two backends", .needsPostgresCluster)
struct SQLConnectionParityTests {
    enum Backend: String, CaseIterable, Sendable {
        case sqlite, postgres
    }

    /// What the statements answered, compared across backends.
    struct Outcome: Equatable {
        var userID: Int64 = 0
        var found: [String] = []
        var revs: [Int64] = []
        var listed: [String] = []
        var changes: [String] = []
        var history: [String] = []
        var clash: String?
        var tokenOwner: Int64?
        var sessionHash: [UInt8] = []
        var upgraded: [Bool] = []
        var liveCount: Int64 = 0
        var missingUser: Int64?
    }

    @Test("the stores' statements give the same answers on SQLite and PostgreSQL", arguments: Backend.allCases)
    func sameAnswers(_ backend: Backend) async throws {
        let outcome: Outcome
        switch backend {
        case .sqlite:
            outcome = try withSQLite { db in try Self.exercise(db) }
        case .postgres:
            outcome = try await withPostgresDatabase { database in
                let db = try database.migrated()
                defer { db.close() }
                return try Self.exercise(db)
            }
        }
        #expect(outcome == Self.expected)
    }

    /// What both backends must answer (the SQLite backend is the reference: these are its answers).
    static let expected = Outcome(
        userID: 1, found: ["zoë", "$argon2id$old", "false"], revs: [1, 2, 3, 4], listed: ["a.md", "b/c.md"],
        changes: ["b/c.md@2", "a.md@3", "gone.md@4:deleted"], history: ["3 a.md", "1 a.md"], clash: nil,
        tokenOwner: 1, sessionHash: [0, 1, 2, 0xFE, 0xFF], upgraded: [true, false], liveCount: 2, missingUser: nil)

    /// Runs the statements, written once, on `db`.
    static func exercise<DB: SQLConnection>(_ db: DB) throws -> Outcome {
        var outcome = Outcome()
        let now: Int64 = 1_700_000_000_000
        // UserStore.create (RETURNING in place of lastInsertRowID, which PostgreSQL has not).
        outcome.userID = try db.transaction {
            guard try db.scalarInt("SELECT id FROM users WHERE username_key = ?", ["zoë"]) == nil else { return -1 }
            return try db.scalarInt("INSERT INTO users (username, username_key, password_hash, created_at) VALUES (?, ?, ?, ?) RETURNING id",
                                    ["Zoë", "zoë", "$argon2id$old", now]) ?? -1
        }
        let user = outcome.userID
        // UserStore.find
        outcome.found = try db.first("SELECT id, username, password_hash, disabled, created_at FROM users WHERE username_key = ?", ["zoë"]) { row in
            [row.string(1).lowercased(), row.string(2), String(row.bool(3))]
        } ?? []
        // NoteStore.put / delete: a revision each, from the user's sequence.
        func nextRevision() throws -> Int64 {
            try db.scalarInt("UPDATE users SET last_rev = last_rev + 1 WHERE id = ? RETURNING last_rev", [user]) ?? -1
        }
        func insert(_ id: String, _ path: String, _ content: String) throws {
            let rev = try nextRevision()
            outcome.revs.append(rev)
            try db.run("""
                INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
                """, user, id, path, path.lowercased(), content, SHA256.hex(of: content), content.utf8.count, rev, now, now)
            try db.run("""
                INSERT INTO revisions (user_id, note_id, rev, path, content, hash, size, deleted, created_at, device) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, user, id, rev, path, content, SHA256.hex(of: content), content.utf8.count, false, now, "laptop" as String?)
        }
        let a = "00000000-0000-4000-8000-00000000000a", c = "00000000-0000-4000-8000-00000000000c"
        let gone = "00000000-0000-4000-8000-0000000000ff"
        try db.transaction {
            try insert(a, "a.md", "# A")
            try insert(c, "b/c.md", "# C")
        }
        try db.transaction {
            let rev = try nextRevision()
            outcome.revs.append(rev)
            try db.run("""
                UPDATE notes SET path = ?, path_key = ?, content = ?, hash = ?, size = ?, rev = ?, created_at = ?, updated_at = ?, deleted = 0
                WHERE user_id = ? AND id = ?
                """, "a.md", "a.md", "# A2", SHA256.hex(of: "# A2"), 4, rev, now, now + 1, user, a)
            try db.run("""
                INSERT INTO revisions (user_id, note_id, rev, path, content, hash, size, deleted, created_at, device) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, user, a, rev, "a.md", "# A2", SHA256.hex(of: "# A2"), 4, false, now + 1, nil as String?)
        }
        try db.transaction {
            let rev = try nextRevision()
            outcome.revs.append(rev)
            try db.run("""
                INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at, deleted)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
                """, user, gone, "gone.md", "gone.md", "", SHA256.hex(of: ""), 0, rev, now, now)
            try db.run("""
                UPDATE notes SET content = '', hash = ?, size = 0, rev = ?, updated_at = ?, deleted = 1 WHERE user_id = ? AND id = ?
                """, SHA256.hex(of: ""), rev, now, user, gone)
        }
        // NoteStore.list
        outcome.listed = try db.query("""
            SELECT \(NoteRecord.columns) FROM notes WHERE user_id = ? AND deleted = 0 AND path > ? ORDER BY path LIMIT ?
            """, [user, "", 10]) { row in row.string(1) }
        // NoteStore.changes
        outcome.changes = try db.query("SELECT \(NoteRecord.columns) FROM notes WHERE user_id = ? AND rev > ? ORDER BY rev LIMIT ?",
                                       [user, 1, 11]) { row in
            "\(row.string(1))@\(row.int64(4))" + (row.bool(7) ? ":deleted" : "")
        }
        // NoteStore.revisions
        outcome.history = try db.query("""
            SELECT rev, path, hash, size, deleted, created_at, device FROM revisions WHERE user_id = ? AND note_id = ? ORDER BY rev DESC
            """, [user, a]) { row in "\(row.int64(0)) \(row.string(1))" }
        // NoteStore.put's path clash check
        outcome.clash = try db.scalarString("SELECT id FROM notes WHERE user_id = ? AND path_key = ? AND deleted = 0 AND id != ?", [user, "a.md", a])
        // PersonalTokenStore and SessionStore: blobs bound and read back.
        let digest: [UInt8] = [0, 1, 2, 0xFE, 0xFF]
        try db.run("""
            INSERT INTO tokens (id, hash, kind, user_id, name, scope, created_at, expires_at)
            VALUES (?, ?, 'personal', ?, ?, ?, ?, ?)
            """, "tok1", digest, user, "script", "read", now, nil as Int64?)
        outcome.tokenOwner = try db.scalarInt("SELECT user_id FROM tokens WHERE hash = ?", [digest])
        let session = try db.scalarInt("""
            INSERT INTO sessions (user_id, device, created_at, last_used_at, refresh_hash, refresh_issued_at)
            VALUES (?, ?, ?, ?, ?, ?) RETURNING id
            """, [user, "laptop", now, now, digest, now]) ?? -1
        outcome.sessionHash = try db.first("SELECT refresh_hash FROM sessions WHERE id = ?", [session]) { $0.bytes(0) } ?? []
        // UserStore.upgradePasswordHash: the second sees the hash changed and does nothing.
        for _ in 0..<2 {
            outcome.upgraded.append(try db.run("UPDATE users SET password_hash = ? WHERE id = ? AND password_hash = ?", "$argon2id$new", user, "$argon2id$old") == 1)
        }
        // NoteStore.liveNoteCount, and a lookup that finds nothing.
        outcome.liveCount = try db.scalarInt("SELECT count(*) FROM notes WHERE user_id = ? AND deleted = 0", [user]) ?? -1
        outcome.missingUser = try db.scalarInt("SELECT id FROM users WHERE username_key = ?", ["nobody"])
        return outcome
    }
}

/// Runs `body` on a fresh SQLite database with the server's schema, as `openDatabase` makes it.
func withSQLite<T>(_ body: (Database) throws -> T) throws -> T {
    let folder = try TemporaryDirectory()
    defer { folder.remove() }
    let db = try Database(path: folder.appending("notes.sqlite").path)
    try ServerSchema.migrator.migrate(db)
    defer { try? db.close() }
    return try body(db)
}
