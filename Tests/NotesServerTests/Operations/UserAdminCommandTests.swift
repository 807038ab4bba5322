import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// `notes-server user …` and `sessions …` as an administrator meets them, on the real binary.
@Suite("Operations: notes-server user administration")
struct UserAdminCommandTests {
    @Test("a mistyped subcommand or command is named unknown with the nearest one suggested, exit 2")
    func unknownCommandsSuggestTheNearest() async throws {
        try await LiveServer.with(account: .none) { server, _ in
            let user = try await server.admin(["user", "lst"])
            #expect(user.exitCode == 2)
            #expect(user.stderr.contains("unknown user command 'lst'; did you mean `list`?"), "\(user.stderr)")
            #expect(!user.stderr.contains("missing"))
            let sessions = try await server.admin(["sessions", "revok"])
            #expect(sessions.exitCode == 2)
            #expect(sessions.stderr.contains("did you mean `revoke`?"), "\(sessions.stderr)")
            let top = try await ProcessRunner.run(BuiltProducts.server, ["serv"])
            #expect(top.exitCode == 2)
            #expect(top.stderr.contains("unknown command 'serv'; did you mean `serve`?"), "\(top.stderr)")
            let far = try await server.admin(["user", "frobnicate"])
            #expect(far.exitCode == 2)
            #expect(far.stderr.contains("unknown user command 'frobnicate'") && !far.stderr.contains("did you mean"), "\(far.stderr)")
        }
    }

    @Test("user delete --yes removes the user's notes, sessions and tokens, and leaves another user's notes alone")
    func deleteRemovesEverythingOfThatUserOnly() async throws {
        try await LiveServer.with(account: .added) { server, client in
            try await server.addUser("bob", password: "bob's own password")
            let alice = try await client.signIn()
            var aliceClient = client
            aliceClient.token = alice.accessToken
            let note = try await aliceClient.create("alice.md", "zebra of alice")
            try await aliceClient.update(note, content: "zebra of alice, again")
            let personal = try await client.createToken("script", scope: .write, using: alice.accessToken)
            let bobClient = try await client.signedIn("bob", password: "bob's own password")
            let bobNote = try await bobClient.create("bob.md", "zebra of bob")

            let delete = try await server.admin(["user", "delete", TestAccount.username, "--yes"])
            #expect(delete.exitCode == 0, "\(delete.stderr)")
            #expect(delete.stdout.contains("Deleted user \(TestAccount.username) and their 1 note"), "\(delete.stdout)")

            #expect(try await client.me(alice.accessToken).status == 401)
            #expect(try await client.me(try #require(personal.token)).status == 401)
            #expect(try await client.refresh(try #require(alice.refreshToken)).status == 401)
            #expect(try await client.login(TestAccount.username, TestAccount.password).errorCode == "invalid_credentials")
            let list = try await server.admin(["user", "list"])
            #expect(list.stdout.split(separator: "\n").map { $0.split(separator: "\t")[0] } == ["bob"])

            let bobRead = try await bobClient.send("GET", "/v1/notes/\(bobNote.id)")
            #expect(bobRead.status == 200)
            let search = try await bobClient.send("GET", "/v1/search", query: [("q", "zebra")])
            #expect(search.status == 200 && search.text.contains("bob.md") && !search.text.contains("alice.md"), "\(search.text)")

            // Nothing keyed by the deleted account is left, and the search index still matches its rows.
            let database = try DirectDatabase(server.databaseLocation)
            defer { database.close() }
            let db = database.db
            do {
                for orphans in ["SELECT count(*) FROM notes WHERE user_id NOT IN (SELECT id FROM users)",
                                "SELECT count(*) FROM revisions WHERE user_id NOT IN (SELECT id FROM users)",
                                "SELECT count(*) FROM sessions WHERE user_id NOT IN (SELECT id FROM users)",
                                "SELECT count(*) FROM tokens WHERE user_id NOT IN (SELECT id FROM users)",
                                "SELECT count(*) FROM spent_refresh_tokens WHERE session_id NOT IN (SELECT id FROM sessions)"] {
                    #expect(try db.scalarInt(orphans) == 0, "\(orphans)")
                }
            }
            // SQLite's full-text index is a table of its own that must still match its rows.
            if let path = server.sqlitePath {
                let sqlite = try Database(path: path)
                defer { try? sqlite.close() }
                #expect(try sqlite.scalarInt("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH 'alice'") == 0)
                try sqlite.execute("INSERT INTO notes_fts(notes_fts) VALUES ('integrity-check')")
            }
        }
    }

    @Test("user rename: the account signs in under the new name only, keeps its notes, and cannot take another user's name")
    func renameKeepsTheAccount() async throws {
        try await LiveServer.with(account: .added) { server, client in
            try await server.addUser("bob", password: "bob's own password")
            let alice = try await client.signIn()
            var aliceClient = client
            aliceClient.token = alice.accessToken
            _ = try await aliceClient.create("kept.md", "still hers")

            let taken = try await server.admin(["user", "rename", TestAccount.username, "BOB"])
            #expect(taken.exitCode == 1 && taken.stderr.contains("already exists"), "\(taken.stderr)")
            let renamed = try await server.admin(["user", "rename", TestAccount.username, "alicia"])
            #expect(renamed.exitCode == 0, "\(renamed.stderr)")

            #expect(try await client.login(TestAccount.username, TestAccount.password).status == 401)
            let again = try await client.signedIn("alicia", password: TestAccount.password)
            let page = try await again.send("GET", "/v1/notes").decode(NoteListPage.self)
            #expect(page.notes.map(\.path) == ["kept.md"])
            #expect(try await server.admin(["user", "rename", "nobody", "x"]).exitCode == 1)
        }
    }

    @Test("user delete without --yes off a terminal refuses with exit 2 and keeps the user")
    func deleteOffTerminalNeedsYes() async throws {
        try await LiveServer.with(account: .added) { server, client in
            let result = try await server.admin(["user", "delete", TestAccount.username], stdin: "y\n")
            #expect(result.exitCode == 2)
            #expect(result.stderr.contains("--yes"), "\(result.stderr)")
            #expect(try await client.login(TestAccount.username, TestAccount.password).status == 200)
            #expect(try await server.admin(["user", "delete", "nobody", "--yes"]).exitCode == 1)
        }
    }

    @Test("a disabled account with the right password hears 403 account_disabled; a wrong password still hears invalid_credentials")
    func disabledAccountIsToldOnlyWithTheRightPassword() async throws {
        try await LiveServer.with(account: .added) { server, client in
            #expect(try await server.admin(["user", "disable", TestAccount.username]).exitCode == 0)
            let right = try await client.login(TestAccount.username, TestAccount.password)
            #expect(right.status == 403)
            #expect(right.errorCode == "account_disabled")
            #expect(right.text.contains("disabled"))
            let wrong = try await client.login(TestAccount.username, "not alice's password")
            #expect(wrong.status == 401)
            #expect(wrong.errorCode == "invalid_credentials")
            let unknown = try await client.login("nobody", "not alice's password")
            #expect(unknown.text == wrong.text)
        }
    }

    @Test("Unicode usernames are stored NFC and one account whatever the case or normalisation typed")
    func unicodeUsernamesAreCaseFoldedAndNFC() async throws {
        try await LiveServer.with(account: .added) { server, client in
            let decomposed = "Zoe\u{0308}"  // Zoë typed with a combining diaeresis
            try await server.addUser(decomposed, password: "zoë's own password")
            let again = try await server.admin(["user", "add", "zoë", "--password-stdin"], stdin: "another password\n")
            #expect(again.exitCode == 1)
            #expect(again.stderr.contains("already exists"), "\(again.stderr)")
            for typed in ["Zoë", "ZOË", "zoe\u{0308}"] {
                let login = try await client.login(typed, "zoë's own password")
                #expect(login.status == 200, "\(typed): \(login.text)")
                // Swift's == ignores normalisation: compare the bytes, which must be NFC's.
                #expect(Array(try login.decode(TokenResponse.self).user.username.utf8) == Array("Zo\u{00EB}".utf8))
            }
            let list = try await server.admin(["user", "list"])
            #expect(Data(list.stdout.utf8).range(of: Data("Zo\u{00EB}\t".utf8)) != nil, "\(list.stdout)")
            #expect(Data(list.stdout.utf8).range(of: Data(decomposed.utf8)) == nil, "stored NFC, not as typed")
            // ASCII names keep today's behaviour: case-insensitive, spelled as added.
            #expect(try await client.login(TestAccount.username.uppercased(), TestAccount.password).status == 200)
            #expect(try await server.admin(["user", "add", "bad name", "--password-stdin"], stdin: "long enough\n").exitCode == 1)
            #expect(try await server.admin(["user", "add", "\u{0308}x", "--password-stdin"], stdin: "long enough\n").exitCode == 1)
        }
    }

    @Test("user list and sessions list print tab-separated rows without a header into a pipe, and JSON with --json")
    func listsShareOneTableStyleAndJSON() async throws {
        try await LiveServer.with(account: .added) { server, client in
            _ = try await client.signIn(device: "laptop")
            #expect(try await server.admin(["user", "disable", TestAccount.username]).exitCode == 0)
            let users = try await server.admin(["user", "list"])
            #expect(users.exitCode == 0)
            let row = try #require(users.stdout.split(separator: "\n").first).split(separator: "\t").map(String.init)
            #expect(users.stdout.split(separator: "\n").count == 1)
            #expect(row.count == 5 && row[0] == TestAccount.username && row[2] == "disabled" && row[3] == "password" && row[4] == "0")

            struct User: Decodable { let id: Int64; let username: String; let createdAt: String; let disabled: Bool }
            let usersJSON = try WireJSON.decoder().decode([User].self, from: Data(try await server.admin(["user", "list", "--json"]).stdout.utf8))
            #expect(usersJSON.map(\.username) == [TestAccount.username] && usersJSON[0].disabled)

            struct Session: Decodable { let id: Int64; let username: String; let device: String; let state: String }
            let sessions = try await server.admin(["sessions", "list", "--all", "--json"])
            let decoded = try WireJSON.decoder().decode([Session].self, from: Data(sessions.stdout.utf8))
            #expect(decoded.map(\.device) == ["laptop"] && decoded[0].state == "revoked" && decoded[0].username == TestAccount.username)
            let plain = try await server.admin(["sessions", "list", "--all"])
            #expect(plain.stdout.split(separator: "\n").map { $0.split(separator: "\t").count } == [6], "\(plain.stdout)")
        }
    }
}
