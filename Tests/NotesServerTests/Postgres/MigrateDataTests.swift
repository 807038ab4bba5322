import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// `notes-server migrate-data`, the real binary: a SQLite server filled through its API is copied
/// into PostgreSQL with every id and byte, verified, once; a damaged source or a full target
/// leaves the target as it was.
@Suite("migrate-data", .needsPostgresCluster)
struct MigrateDataTests {
    @Test("a live SQLite server's notes, revisions, attachment, publication and tokens arrive in PostgreSQL row for row and byte for byte")
    func copiesEverything() async throws {
        try await withSourceServer { source in
            try await withPostgresDatabase { target in
                let migrated = try await Self.migrate(source.databasePath, to: target)
                #expect(migrated.exitCode == 0, "\(migrated.stderr)")
                #expect(migrated.stdout.contains("notes: 4 rows") && migrated.stdout.contains("1 content (\(source.attachment.count) bytes)"),
                        "\(migrated.stdout)")
                #expect(migrated.stdout.contains("sign_in_states"), "the report names what was left behind")

                // Every copied table, row for row, value for value (ids included).
                let sqlite = try Database(path: source.databasePath, options: { var o = Database.Options(); o.readOnly = true; return o }())
                defer { try? sqlite.close() }
                let postgres = try target.connect()
                defer { postgres.close() }
                for table in DataMigration.copiedTables {
                    let sourceRows = try Self.rows(sqlite, table)
                    #expect(try Self.rows(postgres, table, columns: try Self.columns(sqlite, table)) == sourceRows, "table \(table.name)")
                    if ["users", "notes", "revisions", "tokens", "publications", "contents", "sessions"].contains(table.name) {
                        #expect(!sourceRows.isEmpty, "the source filled \(table.name)")
                    }
                }

                // The attachment's bytes, read as a server on PostgreSQL would.
                let pool = try PostgresPool(url: target.url, size: 1)
                defer { pool.close() }
                let store = PostgresBlobStore(pool: pool)
                let userID = try #require(try postgres.scalarInt("SELECT id FROM users WHERE username = 'ada'"))
                let file = try #require(try store.openContent(userID: userID, hash: SHA256.hex(of: source.attachment)))
                #expect(try PostgresBlobStoreTests.read(file) == source.attachment)

                // New rows numbered by PostgreSQL come after the copied ids.
                let copiedMax = try #require(try postgres.scalarInt("SELECT max(nid) FROM notes"))
                let next = try postgres.scalarInt("""
                    INSERT INTO notes (user_id, id, path, path_key, content, hash, size, rev, created_at, updated_at)
                    VALUES (?, 'new', 'new.md', 'new.md', '', '', 0, 999, 1, 1) RETURNING nid
                    """, [userID])
                #expect(try #require(next) > copiedMax)

                // A second run finds the target full and changes nothing.
                let again = try await Self.migrate(source.databasePath, to: target)
                #expect(again.exitCode == 1)
                #expect(again.stderr.contains("is not empty"), "\(again.stderr)")
                #expect(try postgres.scalarInt("SELECT count(*) FROM notes") == 5)
                try postgres.run("DELETE FROM notes WHERE nid = ?", try #require(next))

                try await Self.serveAndRead(source, from: target)
            }
        }
    }

    @Test("a damaged attachment in the source stops the copy and leaves the target empty")
    func damagedSourceLeavesTargetEmpty() async throws {
        try await withSourceServer { source in
            let path = FileBlobStore(databasePath: source.databasePath)
                .contentPath(userID: try source.userID(), hash: SHA256.hex(of: source.attachment))
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
            try await withPostgresDatabase { target in
                let migrated = try await Self.migrate(source.databasePath, to: target)
                #expect(migrated.exitCode == 1)
                #expect(migrated.stderr.contains("is damaged") && migrated.stderr.contains("nothing was copied"), "\(migrated.stderr)")
                let postgres = try target.connect()
                defer { postgres.close() }
                for table in ["users", "notes", "contents", "content_chunks"] {
                    #expect(try postgres.scalarInt("SELECT count(*) FROM \(table)") == 0, "\(table)")
                }
            }
        }
    }

    @Test("without --to, or with a path for --to, it is a usage error and nothing runs")
    func usage() async throws {
        let missing = try await ProcessRunner.run(BuiltProducts.server, ["migrate-data", "--from", "/nonexistent.sqlite"])
        #expect(missing.exitCode == 2 && missing.stderr.contains("--to"), "\(missing.stderr)")
        let path = try await ProcessRunner.run(BuiltProducts.server, ["migrate-data", "--from", "/nonexistent.sqlite", "--to", "/tmp/x.sqlite"])
        #expect(path.exitCode == 2 && path.stderr.contains("postgres://"), "\(path.stderr)")
    }

    /// A server on the migrated database: the password signs in, the changes feed has every
    /// entry, the attachment downloads byte-exact, the personal token and the publication work.
    static func serveAndRead(_ source: Source, from target: PostgresTestDatabase) async throws {
        let server = try await TestServer(database: target.url.description)
        do {
            let client = try await TestAPIClient(server).signedIn("ada", password: "correct horse battery")
            let page = try await client.send("GET", "/v1/changes", query: [("kinds", "note,attachment")])
            #expect(page.status == 200, "\(page.text)")
            let changes = try page.decode(ChangesPage.self).changes
            #expect(Set(changes.map(\.path)).isSuperset(of: ["journal/monday.md", "ideas.md", "journal/a.png"]), "\(changes.map(\.path))")
            let download = try await client.send("GET", "/v1/content/\(SHA256.hex(of: source.attachment))")
            #expect(download.status == 200 && [UInt8](download.body) == source.attachment)
            let me = try await client.send("GET", "/v1/me", token: source.personalToken)
            #expect(me.status == 200, "the personal token made on SQLite works: \(me.text)")
            let published = try await TestAPIClient(baseURL: server.baseURL).send("GET", source.publicationPath)
            #expect(published.status == 200 && published.text.contains("Monday"), "\(published.status)")
        } catch {
            await server.stop()
            throw error
        }
        #expect(await server.stop() == 0)
    }

    // MARK: - Helpers

    /// A SQLite server's database, filled through its API and stopped.
    struct Source {
        let databasePath: String
        let attachment: [UInt8]
        let personalToken: String
        /// The published note's reader link, without the server's address.
        let publicationPath: String

        func userID() throws -> Int64 {
            let db = try Database(path: databasePath)
            defer { try? db.close() }
            return try db.scalarInt("SELECT id FROM users WHERE username = 'ada'") ?? -1
        }
    }

    /// Runs a server on a fresh SQLite file, writes notes (one edited, one deleted), an
    /// attachment, a publication and a personal token through the API, stops it, and hands over
    /// the file.
    func withSourceServer(_ body: (Source) async throws -> Void) async throws {
        let folder = try TemporaryDirectory("migrate-source")
        defer { folder.remove() }
        let databasePath = folder.appending("notes.sqlite").path
        let attachment = testBytes(300_000, seed: 16)
        let server = try await TestServer(database: databasePath)
        let personalToken: String, publicationPath: String
        do {
            try await server.addUser("ada", password: "correct horse battery")
            try await server.addUser("bob", password: "another good passphrase")
            let client = try await TestAPIClient(server).signedIn("ada", password: "correct horse battery")
            let first = try await client.create("journal/monday.md", "# Monday\n")
            _ = try await client.update(first, content: "# Monday\n\nwith an image ![a](a.png)\n")
            let gone = try await client.create("scratch.md", "soon gone\n")
            _ = try await client.delete(gone)
            _ = try await client.create("ideas.md", "many\n")
            let hash = try await client.upload(attachment)
            let put = try await client.putAttachment("journal/a.png", hash: hash)
            #expect(put.status == 201 || put.status == 200, "\(put)")
            let published = try await client.send("POST", "/v1/notes/\(first.id)/publication", json: CreatePublicationRequest())
            #expect(published.status == 201, "\(published.text)")
            let link = try #require(try published.decode(PublicationResource.self).url.flatMap(URL.init(string:)))
            publicationPath = link.path
            let token = try await client.send("POST", "/v1/tokens", json: CreateTokenRequest(name: "backup script", scope: .read, expiresIn: nil))
            #expect(token.status == 201, "\(token.text)")
            personalToken = try #require(try token.decode(PersonalTokenResource.self).token)
        } catch {
            await server.stop()
            throw error
        }
        #expect(await server.stop() == 0)
        try await body(Source(databasePath: databasePath, attachment: attachment, personalToken: personalToken,
                              publicationPath: publicationPath))
    }

    static func migrate(_ path: String, to target: PostgresTestDatabase) async throws -> ProcessResult {
        try await ProcessRunner.run(BuiltProducts.server, ["migrate-data", "--from", path, "--to", target.url.description])
    }

    static func columns(_ db: Database, _ table: DataMigration.Table) throws -> [String] {
        try db.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [table.name]) { $0.string(0) }
    }

    /// Every row of `table` as text, one canonical spelling per value on both databases.
    static func rows(_ db: Database, _ table: DataMigration.Table) throws -> [[String]] {
        let columns = try columns(db, table)
        let list = columns.map(DataMigration.quoted).joined(separator: ", ")
        return try db.query("SELECT \(list) FROM \(DataMigration.quoted(table.name)) ORDER BY \(table.orderBy)") { row in
            (0..<columns.count).map { column in
                switch row.value(column) {
                case .null: "NULL"
                case .integer(let value): String(value)
                case .real(let value): String(value)
                case .text(let text): text
                case .blob(let bytes): Hex.encode(bytes)
                }
            }
        }
    }

    static func rows(_ db: PostgresConnection, _ table: DataMigration.Table, columns: [String]) throws -> [[String]] {
        let list = columns.map(DataMigration.quoted).joined(separator: ", ")
        return try db.query("SELECT \(list) FROM \(DataMigration.quoted(table.name)) ORDER BY \(table.orderBy)") { row in
            (0..<columns.count).map { column in
                if row.isNull(column) { return "NULL" }
                let text = row.string(column)
                return text.hasPrefix("\\x") ? Hex.encode(row.bytes(column)) : text
            }
        }
    }
}
