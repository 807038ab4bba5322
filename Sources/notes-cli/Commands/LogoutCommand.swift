import Foundation
import NotesCommandLine
import NotesCore

/// `notes logout`: revokes the session on the server, then forgets it on this machine.
struct LogoutCommand: Command {
    static let spec = CommandSpec(
        "logout", abstract: "Sign out: revoke the session and forget it",
        discussion: """
            Revokes this machine's session of the account (--username, else the default one) on
            the server, then removes it from the credentials file; other accounts stay signed in.
            If the server cannot be reached, the session is still forgotten here (nobody can use
            it from this machine), notes says so and exits with 5: the server keeps it until it
            expires. NOTES_TOKEN is not affected: revoke it with `notes token revoke`.
            """,
        options: CommandSupport.accountOptions)

    let account: CommandSupport.AccountOptions

    init(_ parsed: ParsedCommand) {
        account = CommandSupport.AccountOptions(parsed)
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let factory = try ClientFactory(environment: terminal.environment)
        let server: ServerURL
        do {
            server = try factory.server(account.server)
        } catch is AccountError {
            terminal.printError("Not signed in; nothing to do.")
            return .success
        }
        let stored: StoredSession
        do {
            stored = try factory.session(server: server, username: account.username)
        } catch is AccountError {
            terminal.printError("Not signed in to \(server)\(account.username.map { " as \($0)" } ?? ""); nothing to do.")
            return .success
        }
        let client = APIClient(server: server, credential: .session(stored, factory.store))
        var failure: (any Error)?
        do {
            try await client.logout()
        } catch let error as ClientError where error.endsSession {
            // The session had already ended on the server: nothing left to revoke.
        } catch {
            failure = error
        }
        // Forget this session, also if a refresh during the logout rotated it, but not a new one
        // that another `notes login` stored meanwhile.
        try await client.sessionProvider?.forget()
        if let failure {
            let outcome = CLI.outcome(of: failure)
            throw CLIError(outcome.exitCode, "forgot the session on this machine, but could not revoke it on the server: \(outcome.sentence)")
        }
        terminal.printError("Signed out of \(server) as \(stored.username).")
        return .success
    }
}
