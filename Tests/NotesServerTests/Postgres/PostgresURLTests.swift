import Foundation
import NotesCommandLine
import NotesTestSupport
import Testing
@testable import NotesServer

/// `--db` with a PostgreSQL URL: parsed as libpq documents it, never echoing a password, and
/// told apart from a SQLite path by its scheme before anything touches the filesystem.
@Suite("PostgreSQL URLs and --db")
struct PostgresURLTests {
    @Test("the URL forms libpq documents are taken apart into user, host, port, database and keywords")
    func parsesTheDocumentedForms() throws {
        let full = try PostgresURL("postgresql://alice:s3cr%40t@db.example:6543/notes?sslmode=require&connect_timeout=5")
        #expect(full.user == "alice" && full.password == "s3cr@t")
        #expect(full.host == "db.example" && full.port == 6543 && full.database == "notes")
        #expect(full.parameters == ["sslmode": "require", "connect_timeout": "5"])

        let socket = try PostgresURL("postgres://postgres@/notes_test?host=/tmp/notes-pg.abc")
        #expect(socket.host == "/tmp/notes-pg.abc" && socket.user == "postgres" && socket.database == "notes_test")

        let encodedSocket = try PostgresURL("postgresql://%2Fvar%2Frun%2Fpostgresql/notes")
        #expect(encodedSocket.host == "/var/run/postgresql" && encodedSocket.database == "notes")

        let ipv6 = try PostgresURL("POSTGRESQL://[::1]:5433/notes")
        #expect(ipv6.host == "::1" && ipv6.port == 5433)

        let bare = try PostgresURL("postgres://")
        #expect(bare.host == nil && bare.user == nil && bare.database == nil)
    }

    @Test("a password never appears in the description or in any parse error")
    func passwordNeverShown() throws {
        let url = try PostgresURL("postgresql://alice:hunter2secret@db.example/notes")
        #expect(url.description == "postgresql://alice:***@db.example/notes")
        for bad in ["postgresql://alice:hunter2secret@db.example:99999/notes",
                    "postgresql://alice:hunter2secret@db.example/notes?bogus=1",
                    "postgresql://alice:hunter2secret%zz@db.example/notes",
                    "postgresql://alice:hunter2secret@db.example/notes#frag"] {
            #expect(throws: PostgresURLError.self) { try PostgresURL(bad) }
            do {
                _ = try PostgresURL(bad)
            } catch {
                #expect(!"\(error)".contains("hunter2secret"), "\(error)")
            }
        }
    }

    @Test("a typo in a connection keyword is refused, not ignored")
    func unknownKeywordRefused() {
        #expect(throws: PostgresURLError.self) { try PostgresURL("postgresql://db.example/notes?sslmod=require") }
        #expect(throws: PostgresURLError.self) { try PostgresURL("postgresql://db.example/notes?host=relative/dir") }
    }

    @Test("libpq gets exactly the URL's parts as keywords")
    func keywordsForLibpq() throws {
        let url = try PostgresURL("postgresql://bob@/notes?host=/run/postgresql&application_name=x")
        let keywords = Dictionary(uniqueKeysWithValues: url.connectionKeywords(["application_name": "notes-server"]))
        #expect(keywords == ["user": "bob", "host": "/run/postgresql", "dbname": "notes",
                             "application_name": "notes-server"])
    }

    @Test("--db is decided by scheme first: PostgreSQL URLs, other schemes refused, anything else a path")
    func databaseLocationByScheme() throws {
        #expect(try DatabaseLocation("postgres://db/notes") == .postgres(try PostgresURL("postgres://db/notes")))
        #expect(try DatabaseLocation("notes.sqlite") == .sqlite(path: "notes.sqlite"))
        #expect(try DatabaseLocation("/var/lib/notes/postgres.sqlite") == .sqlite(path: "/var/lib/notes/postgres.sqlite"))
        #expect(try DatabaseLocation("./mysql://x") == .sqlite(path: "./mysql://x"))
        #expect(throws: UsageError.self) { try DatabaseLocation("mysql://root:pw@db/notes") }
        #expect(throws: UsageError.self) { try DatabaseLocation("postgresql://db:notaport/notes") }
    }

    @Test("? placeholders become $n, except inside literals, quoted names and comments")
    func placeholders() {
        #expect(PostgresPlaceholders.translate("SELECT a FROM t WHERE b = ? AND c > ? LIMIT ?") == ("SELECT a FROM t WHERE b = $1 AND c > $2 LIMIT $3", 3))
        #expect(PostgresPlaceholders.translate("SELECT '?', \"a?\", ? -- why?\n, ? /* what? */ , 'it''s ?'") == ("SELECT '?', \"a?\", $1 -- why?\n, $2 /* what? */ , 'it''s ?'", 2))
        #expect(PostgresPlaceholders.translate("SELECT 1 - ?, 4 / ?") == ("SELECT 1 - $1, 4 / $2", 2))
    }

    @Test("serve and the admin commands fail on an unreachable PostgreSQL --db without showing its password or creating a file", arguments: [
        ["serve", "--listen", "127.0.0.1:0"], ["user", "list"], ["user", "add", "alice", "--password-stdin"], ["backup", "out.sqlite"],
    ])
    func unreachablePostgres(_ command: [String]) async throws {
        try await withTemporaryDirectory { folder in
            let closed = try ClosedPort()
            let url = "postgres://alice:hunter2secret@127.0.0.1:\(closed.port)/notes"
            let result = try await ProcessRunner.run(BuiltProducts.server, command + ["--db", url], stdin: "password123\n",
                                                     currentDirectory: folder.url)
            withExtendedLifetime(closed) {}
            #expect(result.exitCode == 1, "\(result.stderr)")
            #expect(result.stderr.contains("127.0.0.1"), "the message names the server: \(result.stderr)")
            #expect(!result.stderr.contains("hunter2secret"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "nothing may be created")
        }
    }
}
