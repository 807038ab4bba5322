import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// `notes-server backup FILE --db postgres://...`, the real binary: a pg_dump archive that
/// pg_restore brings back into a fresh database, rows and attachment bytes intact; a pg_dump
/// older than the server, or an existing FILE, is refused before anything is written.
@Suite("backup on PostgreSQL", .enabled(if: PostgresTestCluster.shouldRun, PostgresTestCluster.skipReason))
struct PostgresBackupTests {
    @Test("a backup restored with pg_restore into a fresh database holds the same accounts and attachment bytes")
    func backupRestores() async throws {
        try await withContentDatabase { fixture in
            let store = try fixture.store()
            let bytes = PostgresBlobStoreTests.bytes(count: 1_500_000, seed: 21)
            let hash = try fixture.storeContent(bytes, through: store)
            let file = fixture.folder.appending("notes.backup").path

            let backup = try await ProcessRunner.run(BuiltProducts.server, ["backup", file, "--db", fixture.database.url.description])
            #expect(backup.exitCode == 0, "\(backup.stderr)")
            #expect(backup.stdout.contains("pg_restore"), "the report says how to restore: \(backup.stdout)")
            var info = stat()
            #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600, "private to its owner")

            let restored = try PostgresTestDatabase.create()
            defer { restored.drop() }
            let restore = try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/pg_restore"),
                                                      ["--no-owner", "--exit-on-error", "--dbname=\(restored.url.description)", file])
            #expect(restore.exitCode == 0, "\(restore.stderr)")

            let db = try restored.connect()
            defer { db.close() }
            #expect(try PostgresSchema.version(db) == PostgresSchema.latestVersion)
            #expect(try db.scalarInt("SELECT count(*) FROM users") == 2)
            let pool = try PostgresPool(url: restored.url, size: 1)
            defer { pool.close() }
            let content = try #require(try PostgresBlobStore(pool: pool, temporaryFolder: fixture.folder.path)
                .openContent(userID: fixture.userID, hash: hash))
            #expect(try PostgresBlobStoreTests.read(content) == bytes)
            // The restored database still guards its contents: no row without its bytes.
            #expect(throws: PostgresError.self) {
                try db.run("INSERT INTO contents (user_id, hash, size, created_at) VALUES (?, ?, 1, 1)", fixture.userID, String(repeating: "0", count: 64))
            }
        }
    }

    @Test("a pg_dump older than the server, or a FILE that exists, is refused before anything is written")
    func refusals() async throws {
        try await withContentDatabase { fixture in
            let old = fixture.folder.appending("pg_dump").path
            try "#!/bin/sh\necho 'pg_dump (PostgreSQL) 9.6.24'\n".write(toFile: old, atomically: true, encoding: .utf8)
            chmod(old, 0o755)
            let file = fixture.folder.appending("old.backup").path
            let tooOld = try await ProcessRunner.run(BuiltProducts.server, ["backup", file, "--pg-dump", old, "--db", fixture.database.url.description])
            #expect(tooOld.exitCode == 1)
            #expect(tooOld.stderr.contains("older than the server"), "\(tooOld.stderr)")
            #expect(!FileManager.default.fileExists(atPath: file))

            let existing = fixture.folder.appending("existing.backup").path
            try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
            let refused = try await ProcessRunner.run(BuiltProducts.server, ["backup", existing, "--db", fixture.database.url.description])
            #expect(refused.exitCode == 1 && refused.stderr.contains("already exists"), "\(refused.stderr)")
            #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
        }
    }
}
