import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// `notes-server backup FILE --db postgres://...`, the real binary: a pg_dump archive that
/// pg_restore brings back into a fresh database, rows and attachment bytes intact; a pg_dump
/// older than the server, or an existing FILE, is refused before anything is written.
@Suite("backup on PostgreSQL", .needsPostgresCluster)
struct PostgresBackupTests {
    @Test("a backup restored with pg_restore into a fresh database serves the same account, notes and attachment bytes")
    func backupRestores() async throws {
        try await withPostgresDatabase { original in
            try await withTemporaryDirectory { folder in
                let bytes = PostgresBlobStoreTests.bytes(count: 1_500_000, seed: 21)
                let server = try await TestServer(database: original.url.description)
                do {
                    try await server.addUser("ada", password: "correct horse battery")
                    let client = try await TestAPIClient(server).signedIn("ada", password: "correct horse battery")
                    _ = try await client.create("kept.md", "# Kept\n")
                    let hash = try await client.upload(bytes)
                    _ = try await client.putAttachment("kept.bin", hash: hash)
                } catch {
                    await server.stop()
                    throw error
                }
                #expect(await server.stop() == 0)

                let file = folder.appending("notes.backup").path
                let backup = try await ProcessRunner.run(BuiltProducts.server, ["backup", file, "--db", original.url.description])
                #expect(backup.exitCode == 0, "\(backup.stderr)")
                #expect(backup.stdout.contains("pg_restore"), "the report says how to restore: \(backup.stdout)")
                var info = stat()
                #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600, "private to its owner")

                let restored = try PostgresTestDatabase.create()
                defer { restored.drop() }
                let restore = try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/pg_restore"),
                                                          ["--no-owner", "--exit-on-error", "--dbname=\(restored.url.description)", file])
                #expect(restore.exitCode == 0, "\(restore.stderr)")

                let again = try await TestServer(database: restored.url.description)
                do {
                    let client = try await TestAPIClient(again).signedIn("ada", password: "correct horse battery")
                    let page = try await client.send("GET", "/v1/changes", query: [("kinds", "note,attachment")])
                    #expect(Set(try page.decode(ChangesPage.self).changes.map(\.path)) == ["kept.md", "kept.bin"], "\(page.text)")
                    let download = try await client.send("GET", "/v1/content/\(SHA256.hex(of: bytes))")
                    #expect(download.status == 200 && [UInt8](download.body) == bytes)
                } catch {
                    await again.stop()
                    throw error
                }
                #expect(await again.stop() == 0)
                // The restored database still guards its contents: no row without its bytes.
                let db = try restored.connect()
                defer { db.close() }
                #expect(throws: PostgresError.self) {
                    try db.run("INSERT INTO contents (user_id, hash, size, created_at) SELECT id, ?, 1, 1 FROM users", String(repeating: "0", count: 64))
                }
            }
        }
    }

    @Test("the password in --db reaches pg_dump through PGPASSWORD, never its arguments")
    func passwordStaysOutOfArguments() async throws {
        try await withContentDatabase { fixture in
            // A stand-in pg_dump that says it is new enough and writes down what it was given.
            let record = fixture.folder.appending("seen").path
            let program = fixture.folder.appending("pg_dump").path
            try """
                #!/bin/sh
                if [ "$1" = "--version" ]; then echo 'pg_dump (PostgreSQL) 99.1'; exit 0; fi
                printf '%s\n' "$@" > '\(record)'
                printf 'PGPASSWORD=%s\n' "$PGPASSWORD" >> '\(record)'
                """.write(toFile: program, atomically: true, encoding: .utf8)
            chmod(program, 0o755)
            let url = fixture.database.url
            let withPassword = "postgresql://\(url.user ?? "postgres"):pw-4f1c9e@/\(url.database ?? "")?host=\(url.host ?? "")"
            let file = fixture.folder.appending("secret.backup").path
            let backup = try await ProcessRunner.run(BuiltProducts.server, ["backup", file, "--pg-dump", program, "--db", withPassword])
            #expect(backup.exitCode == 0, "\(backup.stderr)")
            let seen = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(seen.last == "PGPASSWORD=pw-4f1c9e")
            #expect(seen.dropLast().allSatisfy { !$0.contains("pw-4f1c9e") }, "\(seen)")
            #expect(seen.contains("--format=custom") && seen.contains("--file=\(file)"), "\(seen)")
            #expect(!backup.stdout.contains("pw-4f1c9e") && !backup.stderr.contains("pw-4f1c9e"))
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
