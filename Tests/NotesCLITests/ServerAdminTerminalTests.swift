import Foundation
import NotesTestSupport
import Testing

/// `notes-server user …` at a terminal, and what `notes login` shows for the server's answers.
@Suite("notes-server user commands on a terminal", .enabled(if: TerminalSession.pythonAvailable))
struct ServerAdminTerminalTests {
    @Test("user add refuses a too-short password right after the first entry, without asking to repeat it")
    func passwordLengthCheckedBeforeRepeat() async throws {
        try await LiveServer.with(account: .added) { harness in
            let session = try await TerminalSession.run([("New password:", "short\r")],
                                                        BuiltProducts.server, ["user", "add", "bob", "--db", harness.server.databaseLocation])
            #expect(session.status == 1, "\(session.output)")
            #expect(session.output.contains("at least 8 characters"), "\(session.output)")
            #expect(!session.output.contains("Repeat it"))
            #expect(session.echoRestored)
        }
    }

    @Test("user delete on a terminal asks first: no keeps the user, yes deletes them")
    func deleteAsksForConfirmation() async throws {
        try await LiveServer.with(account: .added) { harness in
            let arguments = ["user", "delete", TestAccount.username, "--db", harness.server.databaseLocation]
            let kept = try await TerminalSession.run([("[y/N]", "n\r")], BuiltProducts.server, arguments)
            #expect(kept.status == 1, "\(kept.output)")
            #expect(kept.output.contains("nothing was deleted"), "\(kept.output)")
            let list = try await harness.server.admin(["user", "list"])
            #expect(list.stdout.hasPrefix(TestAccount.username + "\t"), "\(list.stdout)")

            let deleted = try await TerminalSession.run([("[y/N]", "y\r")], BuiltProducts.server, arguments)
            #expect(deleted.status == 0, "\(deleted.output)")
            #expect(deleted.output.contains("Deleted user \(TestAccount.username)"), "\(deleted.output)")
            #expect(try await harness.server.admin(["user", "list"]).stdout.isEmpty)
        }
    }

    @Test("user list and sessions list on a terminal print a header over aligned columns")
    func listsOnTerminalHaveAHeader() async throws {
        try await LiveServer.with(account: .added) { harness in
            let users = try await TerminalSession.run([], BuiltProducts.server, ["user", "list", "--db", harness.server.databaseLocation])
            #expect(users.status == 0, "\(users.output)")
            #expect(users.output.contains("USER  CREATED"), "\(users.output)")
            #expect(users.output.contains("\(TestAccount.username)  "), "\(users.output)")
            let sessions = try await TerminalSession.run([], BuiltProducts.server, ["sessions", "list", "--db", harness.server.databaseLocation])
            #expect(sessions.status == 0, "\(sessions.output)")
            #expect(sessions.output.contains("ID  USER  DEVICE  CREATED"), "\(sessions.output)")
        }
    }

    @Test("notes login with the right password to a disabled account says the account is disabled")
    func loginToDisabledAccountSaysSo() async throws {
        try await LiveServer.with(account: .added) { harness in
            #expect(try await harness.server.admin(["user", "disable", TestAccount.username]).exitCode == 0)
            let login = try await harness.notes(["login", "--server", harness.serverURL, "--username", TestAccount.username,
                                                 "--password-stdin"], stdin: TestAccount.password + "\n")
            #expect(login.exitCode != 0)
            #expect(login.stderr.contains("disabled"), "\(login.stderr)")
            #expect(!login.stderr.contains("wrong"), "\(login.stderr)")
        }
    }
}
