import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The schema a fresh database is migrated to, on each backend, equals the one recorded in
/// `Tests/schema/` (its tables and columns, indexes, constraints, triggers and functions, and
/// each version the migrations record). The migrations are the database's contract with every
/// existing installation: a change of their text that changes what they make shows up here, and
/// one that only moves them around does not. A new schema version changes the recorded schema
/// on purpose: run the suite once with `NOTES_RECORD_SCHEMA=1` to write it, and read its diff.
@Suite("A fresh database's schema")
struct FreshSchemaTests {
    @Test("a fresh SQLite database is migrated to the recorded schema", .sqliteOnly)
    func sqliteSchemaIsRecorded() throws {
        let actual = try withSQLite { db in try SchemaDump.sqlite(db) }
        let expected = try SchemaDump.recorded("sqlite.txt", actual: actual)
        #expect(actual == expected, "the SQLite schema differs from Tests/schema/sqlite.txt")
    }

    @Test("a fresh PostgreSQL database is migrated to the recorded schema", .needsPostgresCluster)
    func postgresSchemaIsRecorded() async throws {
        let actual = try await withPostgresDatabase { database in
            let db = try database.migrated()
            defer { db.close() }
            return try SchemaDump.postgres(db)
        }
        let expected = try SchemaDump.recorded("postgres.txt", actual: actual)
        #expect(actual == expected, "the PostgreSQL schema differs from Tests/schema/postgres.txt")
    }
}

/// A database's schema as text, in a fixed order, for comparison with a recorded copy.
enum SchemaDump {
    /// The folder of recorded schemas: `Tests/schema/`, found from this file's path.
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("schema")

    /// The recorded schema in `name`; with `NOTES_RECORD_SCHEMA=1`, `actual` is recorded there first.
    static func recorded(_ name: String, actual: String) throws -> String {
        let file = folder.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["NOTES_RECORD_SCHEMA"] == "1" {
            try actual.write(to: file, atomically: true, encoding: .utf8)
        }
        return try String(contentsOf: file, encoding: .utf8)
    }

    /// Every object in `sqlite_master` with the statement that made it, and the schema version.
    static func sqlite(_ db: Database) throws -> String {
        var lines = ["user_version \(try db.scalarInt("PRAGMA user_version") ?? -1)"]
        lines += try db.query("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name") { row in
            "\(row.string(0)) \(row.string(1)) on \(row.string(2))\n\(row.optionalString(3) ?? "(made by SQLite)")"
        }
        return lines.joined(separator: "\n\n") + "\n"
    }

    /// The catalog's account of what the migrations made in the database's schema, section by section.
    static func postgres(_ db: PostgresConnection) throws -> String {
        let sections: [(title: String, sql: String)] = [
            ("migrations", "SELECT version || ' ' || name FROM schema_migrations ORDER BY version"),
            ("extensions", "SELECT extname FROM pg_extension ORDER BY extname"),
            ("columns", """
                SELECT concat_ws(' | ', table_name, column_name, data_type, is_nullable, coalesce(column_default, 'no default'),
                                 is_identity, coalesce(identity_generation, '-'), is_generated, coalesce(generation_expression, '-'))
                FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
                """),
            ("compression", """
                SELECT c.relname || '.' || a.attname || ' ' || a.attcompression::text
                FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                WHERE c.relnamespace = current_schema()::regnamespace AND a.attcompression <> ''
                ORDER BY c.relname, a.attname
                """),
            ("constraints", """
                SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
                FROM pg_constraint WHERE connamespace = current_schema()::regnamespace ORDER BY conrelid::regclass::text, conname
                """),
            ("indexes", "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY tablename, indexname"),
            ("triggers", "SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgrelid::regclass::text, tgname"),
            ("functions", """
                SELECT CASE WHEN p.prokind = 'f' THEN pg_get_functiondef(p.oid)
                            ELSE p.prokind::text || ' ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' END
                FROM pg_proc p
                WHERE p.pronamespace = current_schema()::regnamespace
                    AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
                ORDER BY p.proname
                """),
            ("text search", """
                SELECT c.cfgname || ' ' || t.alias || ' ' || string_agg(d.dictname, ', ' ORDER BY m.mapseqno)
                FROM pg_ts_config c JOIN pg_ts_config_map m ON m.mapcfg = c.oid JOIN pg_ts_dict d ON d.oid = m.mapdict
                    JOIN ts_token_type('default') t ON t.tokid = m.maptokentype
                WHERE c.cfgnamespace = current_schema()::regnamespace
                GROUP BY c.cfgname, t.alias ORDER BY c.cfgname, t.alias
                """),
        ]
        var text = ""
        for section in sections {
            text += "== \(section.title)\n"
            for line in try db.query(section.sql, row: { $0.string(0) }) { text += line + "\n" }
            text += "\n"
        }
        return text
    }
}
