import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The remote commands through the real binary: what they print, and their exit codes.
@Suite("Client commands end to end")
struct ClientCommandsTests {
    @Test("ls, cat and search show the server's notes; --json output decodes as the wire types")
    func listCatSearch() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            try await harness.createNotes([("b/zebra.md", "stripes and more\n"), ("a/apple.md", "crunchy fruit\r\nno newline")])
            let ls = try await harness.notes(["ls"])
            #expect(ls.exitCode == 0)
            #expect(ls.stdout == "a/apple.md\nb/zebra.md\n")
            let json = try WireJSON.decoder().decode(ListCommand.Output.self, from: Data(try await harness.notes(["ls", "--json"]).stdout.utf8))
            #expect(json.notes.map(\.path) == ["a/apple.md", "b/zebra.md"])

            let cat = try await harness.notes(["cat", "a/apple.md"])
            #expect(cat.stdout == "crunchy fruit\r\nno newline")
            let missing = try await harness.notes(["cat", "a/apple.md", "nope.md"])
            #expect(missing.exitCode == 1)
            #expect(missing.stdout == "crunchy fruit\r\nno newline")
            #expect(missing.stderr.contains("no note at nope.md"))
            #expect(try await harness.notes(["cat", "../escape.md"]).exitCode == 2)

            let search = try await harness.notes(["search", "stripes"])
            #expect(search.exitCode == 0)
            #expect(search.stdout.hasPrefix("b/zebra.md: "))
            let results = try WireJSON.decoder().decode(SearchResults.self, from: Data(try await harness.notes(["search", "crunchy", "--json"]).stdout.utf8))
            #expect(results.results.map(\.path) == ["a/apple.md"])
        }
    }

    @Test("a personal token is shown once on create, works through NOTES_TOKEN, and after revoke fails with exit 4 naming it")
    func personalTokens() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let created = try await harness.notes(["token", "create", "ci", "--scope", "read"])
            #expect(created.exitCode == 0, "\(created.stderr)")
            let secret = created.stdout.trimmingCharacters(in: .newlines)
            #expect(secret.hasPrefix("npt_") && !secret.contains("\n"))
            #expect(created.stderr.contains("only time"))

            let list = try await harness.notes(["token", "list", "--json"])
            let tokens = try WireJSON.decoder().decode(PersonalTokenList.self, from: Data(list.stdout.utf8)).tokens
            #expect(tokens.map(\.name) == ["ci"])
            #expect(!list.stdout.contains(secret))
            #expect(try await harness.notes(["token", "list"]).stdout.contains("ci"))

            // A script's environment: no stored credentials at all, only the two variables.
            let script = try TemporaryDirectory("notes-script")
            defer { script.remove() }
            let scriptEnvironment = ["HOME": script.path, "XDG_CONFIG_HOME": script.appending("config").path,
                                     "NOTES_TOKEN": secret, "NOTES_SERVER": harness.serverURL]
            let whoami = try await harness.notes(["whoami"], environment: scriptEnvironment)
            #expect(whoami.exitCode == 0, "\(whoami.stderr)")
            #expect(!whoami.stdout.contains(secret) && !whoami.stderr.contains(secret))

            let id = try #require(tokens.first?.id)
            #expect(try await harness.notes(["token", "revoke", id]).exitCode == 0)
            let refused = try await harness.notes(["whoami"], environment: scriptEnvironment)
            #expect(refused.exitCode == 4)
            #expect(refused.stderr.contains("NOTES_TOKEN"))
            #expect(try await harness.notes(["token", "revoke", id]).exitCode == 1)
            #expect(try await harness.notes(["token", "create", "x"]).exitCode == 2)
        }
    }

    @Test("login refuses to read a password from a non-terminal unasked, reports a wrong password, and logout forgets the session")
    func loginAndLogout() async throws {
        try await LiveServer.with(account: .added) { harness in
            let notSignedIn = try await harness.notes(["whoami"])
            #expect(notSignedIn.exitCode == 4)
            #expect(notSignedIn.stderr.contains("notes login"))

            let noStdinFlag = try await harness.notes(["login", "--server", harness.serverURL, "--username", "ada"], stdin: "pw\n")
            #expect(noStdinFlag.exitCode == 2)
            #expect(noStdinFlag.stderr.contains("--password-stdin"))

            let wrong = try await harness.notes(["login", "--server", harness.serverURL, "--username", "ada", "--password-stdin"], stdin: "nope\n")
            #expect(wrong.exitCode == 1)
            #expect(wrong.stderr == "notes login: wrong username or password for \(harness.serverURL)\n")
            #expect(try harness.storedSession() == nil)

            try await harness.login()
            #expect(try await harness.notes(["whoami"]).exitCode == 0)
            let logout = try await harness.notes(["logout"])
            #expect(logout.exitCode == 0)
            #expect(try harness.storedSession() == nil)
            #expect(try await harness.notes(["whoami"]).exitCode == 4)
            #expect(try await harness.notes(["logout"]).exitCode == 0)
        }
    }

    @Test("every command answers --help with its usage", arguments: ["login", "logout", "whoami", "ls", "cat", "search", "token"])
    func help(command: String) async throws {
        let home = try TemporaryDirectory("notes-home")
        defer { home.remove() }
        let result = try await ProcessRunner.run(BuiltProducts.client, [command, "--help"], environment: ["HOME": home.path])
        #expect(result.exitCode == 0)
        #expect(result.stdout.hasPrefix("Usage: notes \(command)"))
    }
}
