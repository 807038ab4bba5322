import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Admin commands and the database they touch: only `serve` and `user add` create one, a
/// backup is private to its owner, and the server's log lines carry the time.
@Suite("notes-server admin: which commands create a database, private backups, stamped logs")
struct AdminDatabaseTests {
    @Test("user list, user passwd, sessions list and backup with a mistyped --db fail with \"no database at PATH\" and create nothing", arguments: [
        ["user", "list"], ["user", "disable", "alice"], ["sessions", "list"], ["backup", "BACKUP"],
    ])
    func commandsNeedAnExistingDatabase(_ command: [String]) async throws {
        try await withTemporaryDirectory { dir in
            let mistyped = dir.appending("notse.sqlite").path
            let backup = dir.appending("backup.sqlite").path
            let arguments = command.map { $0 == "BACKUP" ? backup : $0 } + ["--db", mistyped]
            let result = try await ProcessRunner.run(BuiltProducts.server, arguments)
            #expect(result.exitCode == 1, "\(command): exit \(result.exitCode), \(result.stderr)")
            #expect(result.stderr.contains("no database at \(mistyped)"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: mistyped))
            #expect(!FileManager.default.fileExists(atPath: backup))
        }
    }

    @Test("without --db, user list fails on a host with no database instead of creating one at the default path")
    func defaultPathIsNotCreated() async throws {
        try await withTemporaryDirectory { dir in
            let environment = ["XDG_DATA_HOME": dir.path, "HOME": dir.path]
            let result = try await ProcessRunner.run(BuiltProducts.server, ["user", "list"], environment: environment)
            let defaultPath = dir.appending("notes-server/notes.sqlite").path
            #expect(result.exitCode == 1)
            #expect(result.stderr.contains("no database at \(defaultPath)"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: defaultPath))
            // `user add` is the one admin command that may start a database.
            let added = try await ProcessRunner.run(BuiltProducts.server, ["user", "add", "alice", "--password-stdin"],
                                                    environment: environment, stdin: "correct horse battery\n")
            #expect(added.exitCode == 0, "\(added.stderr)")
            let listed = try await ProcessRunner.run(BuiltProducts.server, ["user", "list"], environment: environment)
            #expect(listed.exitCode == 0)
            #expect(listed.stdout.contains("alice"))
        }
    }

    @Test("backup writes a file only its owner can read (0600), holding the users")
    func backupIsPrivate() async throws {
        try await withTemporaryDirectory { dir in
            let database = dir.appending("notes.sqlite").path
            let added = try await ProcessRunner.run(BuiltProducts.server, ["user", "add", "alice", "--password-stdin", "--db", database],
                                                    stdin: "correct horse battery\n")
            #expect(added.exitCode == 0, "\(added.stderr)")
            let backup = dir.appending("backup.sqlite").path
            let result = try await ProcessRunner.run(BuiltProducts.server, ["backup", backup, "--db", database])
            #expect(result.exitCode == 0, "\(result.stderr)")
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int)
            #expect(mode & 0o777 == 0o600, "backup mode \(String(mode, radix: 8))")
            #expect(try Database(path: backup).scalarString("SELECT username FROM users") == "alice")
        }
    }

    @Test("every server log line starts with an RFC 3339 UTC timestamp")
    func logLinesAreStamped() async throws {
        let server = try await TestServer()
        _ = try await TestAPIClient(server).send("GET", "/healthz")
        server.process.terminate()
        await server.waitForExit()
        // The log pipe is read on another thread: wait for the last line to arrive.
        _ = try await waitUntil { server.log.contains("shutting down on SIGTERM") }
        let lines = server.log.split(separator: "\n")
        await server.stop()
        #expect(lines.contains { $0.contains("GET /healthz 200") })
        #expect(lines.contains { $0.contains("shutting down on SIGTERM") })
        let stamp = #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z "#
        for line in lines {
            #expect(line.range(of: stamp, options: .regularExpression) != nil, "unstamped log line: \(line)")
        }
    }
}
