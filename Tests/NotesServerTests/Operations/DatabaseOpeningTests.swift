import Foundation
import NotesTestSupport
import Testing

/// How `--db` and the TLS files are opened, as an administrator meets it: a mistyped folder is
/// refused rather than created, and a file that cannot serve is named in one plain sentence,
/// never in SQLite's or Foundation's words.
@Suite("notes-server: opening --db and the TLS files", .sqliteOnly)
struct DatabaseOpeningTests {
    @Test("serve and user add with --db in a folder that does not exist refuse, naming the folder, and create nothing", arguments: [
        (["serve", "--listen", "127.0.0.1:0"], "notes-server serve"), (["user", "add", "alice", "--password-stdin"], "notes-server user add"),
    ])
    func missingFolderIsRefused(_ command: [String], _ program: String) async throws {
        try await withTemporaryDirectory { dir in
            let typo = dir.appending("ntoes").path
            let database = typo + "/server/notes.sqlite"
            let arguments = command + ["--db", database]
            // A server that started would never end by itself: it is killed, and the test fails.
            let result = command[0] == "serve"
                ? try await ProcessRunner.run(BuiltProducts.server, arguments, killAfter: .seconds(30)).result
                : try await ProcessRunner.run(BuiltProducts.server, arguments, stdin: "correct horse battery\n")
            #expect(result.exitCode == 1, "\(result.stderr)")
            #expect(result.stderr == "\(program): the folder \(typo)/server for the database \(database) does not exist "
                    + "(create it, or pass --create-dirs)\n", "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: typo))
        }
    }

    @Test("with --create-dirs, user add and serve create the missing folders and the database in them")
    func createDirsCreatesThem() async throws {
        try await withTemporaryDirectory { dir in
            let database = dir.appending("new/server/notes.sqlite").path
            let added = try await ProcessRunner.run(BuiltProducts.server, ["user", "add", "alice", "--password-stdin", "--create-dirs", "--db", database],
                                                    stdin: "correct horse battery\n")
            #expect(added.exitCode == 0, "\(added.stderr)")
            #expect(FileManager.default.fileExists(atPath: database))
            let served = dir.appending("other/notes.sqlite").path
            let server = try await TestServer(extraArguments: ["--create-dirs"], database: served)
            await server.stop()
            #expect(FileManager.default.fileExists(atPath: served))
        }
    }

    @Test("a --db file in an existing folder is created: only missing folders need --create-dirs")
    func ownFileIsCreated() async throws {
        try await withTemporaryDirectory { dir in
            let database = dir.appending("notes.sqlite").path
            let server = try await TestServer(database: database)
            await server.stop()
            #expect(FileManager.default.fileExists(atPath: database))
        }
    }

    @Test("a --db that is not a SQLite database is named as such in one sentence, for admin commands and serve", arguments: [
        ["user", "list"], ["serve", "--listen", "127.0.0.1:0"],
    ])
    func notADatabase(_ command: [String]) async throws {
        try await withTemporaryDirectory { dir in
            let text = dir.appending("passwd").path
            let content = "root:x:0:0:root:/root:/bin/bash\n" + String(repeating: "daemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n", count: 200)
            try Data(content.utf8).write(to: URL(fileURLWithPath: text))
            let result = try await ProcessRunner.run(BuiltProducts.server, command + ["--db", text], killAfter: .seconds(30)).result
            #expect(result.exitCode == 1, "\(result.stderr)")
            #expect(result.stderr.hasSuffix(": \(text) is not a SQLite database (is --db the right file?)\n"), "\(result.stderr)")
            #expect(!result.stderr.contains("SQLite error"), "\(result.stderr)")
            #expect(try String(contentsOfFile: text, encoding: .utf8) == content, "the file is left as it was")
        }
    }

    @Test("serve with a TLS certificate or key that is missing or not PEM says which file and why, and creates no database")
    func unusableTLSFiles() async throws {
        try await withTemporaryDirectory { dir in
            let database = dir.appending("notes.sqlite").path
            let missing = dir.appending("missing.pem").path
            let text = dir.appending("not-pem.txt").path
            try Data("just some text\n".utf8).write(to: URL(fileURLWithPath: text))
            let cases: [([String], String)] = [
                (["--tls-cert", missing, "--tls-key", text], "the TLS certificate \(missing) (--tls-cert) does not exist"),
                (["--tls-cert", text, "--tls-key", text], "the TLS certificate \(text) (--tls-cert) is not a PEM file (it has no -----BEGIN line)"),
                (["--tls-cert", dir.path, "--tls-key", text], "the TLS certificate \(dir.path) (--tls-cert) is a folder, not a PEM file"),
            ]
            for (flags, sentence) in cases {
                let result = try await ProcessRunner.run(BuiltProducts.server, ["serve", "--db", database, "--listen", "127.0.0.1:0"] + flags,
                                                         killAfter: .seconds(30)).result
                #expect(result.exitCode == 1, "\(flags): \(result.stderr)")
                #expect(result.stderr == "notes-server serve: \(sentence)\n", "\(result.stderr)")
                #expect(!result.stderr.contains("NSCocoaErrorDomain"))
                #expect(!FileManager.default.fileExists(atPath: database))
            }
        }
    }
}
