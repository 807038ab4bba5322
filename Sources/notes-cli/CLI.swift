import NotesCommandLine
import NotesCore

/// The `notes` program: its command tree, and the one place a command line becomes a command
/// run and every outcome an exit code.
enum CLI: DeclaredCommand {
    static let spec = CommandSpec(
        "notes", abstract: "keep a folder of Markdown notes in sync with a Notes server.",
        options: [.flag("version", help: "Print the version")],
        epilogue: """
            Environment: NOTES_SERVER, NOTES_TOKEN (a personal access token for scripts).
            As with curl: https_proxy, http_proxy, all_proxy, no_proxy; CURL_CA_BUNDLE (a PEM file of
            certificate authorities to trust instead of the system's).
            Output has no colour (so NO_COLOR needs nothing); progress goes to stderr on a terminal only.
            Exit codes: 0 done, 1 failure, 2 usage error, 3 sync left conflicts, 4 sign-in required,
            5 server unreachable.
            """)

    /// Every command, in the order `notes --help` lists them.
    static var subcommands: [any DeclaredCommand.Type] {
        [
            LoginCommand.self, LogoutCommand.self, WhoamiCommand.self, ListCommand.self, CatCommand.self,
            SearchCommand.self, TokenCommand.self, CloneCommand.self, InitCommand.self, SyncCommand.self,
            StatusCommand.self, RenderCommand.self, ExportCommand.self, VersionCommand.self, LogCommand.self,
            RestoreCommand.self, TrashCommand.self, PurgeCommand.self, ConflictsCommand.self, ResolveCommand.self,
            PublishCommand.self, UnpublishCommand.self, PublishedCommand.self, SpaceCommand.self,
        ]
    }

    static let program = CommandLineProgram("notes", root: tree)

    /// Runs `notes` with `argv` (without the program name) and returns the exit code.
    static func main(_ argv: [String], terminal: Terminal = Terminal()) async -> Int32 {
        await program.run(argv, output: terminal, version: VersionCommand.line, command: { parsed in
            guard let command = command(at: parsed.path) as? any Command.Type else { return nil }
            return try await command.init(parsed).run(terminal).rawValue
        }, outcome: { error in
            let outcome = outcome(of: error)
            return (outcome.exitCode.rawValue, outcome.sentence)
        })
    }

    /// The one place a failure becomes an exit code and a sentence for stderr (docs/architecture.md, section 4.1): the
    /// layers below keep the cause in their own errors and commands state their own (`CLIError`).
    static func outcome(of error: any Error) -> (exitCode: ExitCode, sentence: String) {
        switch error {
        case let error as CLIError: (error.exitCode, error.message)
        case let error as UsageError: (.usage, error.message)
        case let error as ClientError: outcome(of: error)
        case let error as AccountError: (.signInRequired, sentence(of: error))
        case let error as SignInError: (.failure, sentence(of: error))
        case let error as CredentialsError: (.failure, sentence(of: error))
        case let error as OutputError: (.failure, sentence(of: error))
        case let error as ExportError: (.failure, error.sentence)
        // The sync layer's errors (Sources/notes-cli/Sync and Watch).
        case let error as FolderLookupError: (.usage, error.description)
        case let error as FolderError: (.failure, error.description)
        case let error as LockError: (.failure, error.description)
        case let error as AccountMismatch: (.signInRequired, error.description)
        case let error as MassDeleteRefusal: (.failure, error.sentence)
        case let error as WatchError: outcome(of: error)
        default: (.failure, "\(error)")
        }
    }

    /// A watcher that stopped exits as its cause would (4 for a session that is over, 1 for the
    /// mass-delete guard), with a sentence naming the folder.
    static func outcome(of error: WatchError) -> (exitCode: ExitCode, sentence: String) {
        switch error {
        case .stopped(let root, let cause):
            let outcome = outcome(of: cause)
            return (outcome.exitCode, "stopped watching \(root): \(outcome.sentence)")
        case .cannotWatch:
            return (.failure, error.description)
        }
    }

    /// Exit 4 for a session or token that is over, 5 when the server is out of reach, 1 for
    /// everything else the server (or something pretending to be it) did.
    static func outcome(of error: ClientError) -> (exitCode: ExitCode, sentence: String) {
        switch error {
        case .sessionEnded:
            (.signInRequired, "session expired or revoked: run `notes login`")
        case .renewalRefused(let refusal):
            (.signInRequired, "the server refused to renew the session (\(refusal.message)): run `notes login`")
        case .tokenRefused:
            (.signInRequired, "the server refused the token in NOTES_TOKEN (expired, revoked or unknown): "
             + "create a new one with `notes token create`, or unset NOTES_TOKEN to use `notes login`")
        case .unreachable(let server, let cause) where cause.kind == .deadlineExceeded:
            (.serverUnreachable, "\(server) is too slow: \(cause.description)")
        case .unreachable(let server, let cause):
            (.serverUnreachable, "cannot reach \(server): \(cause.description)")
        case .transportFailed(let server, let cause):
            (.failure, "request to \(server) failed: \(cause.description)")
        case .status where error.losesSpace:
            (.signInRequired, "this folder's space is gone for you (you were removed from it, or it was deleted); "
             + "every file here is kept: copy them elsewhere, or ask the space's owner to add you again")
        case .status(let status) where status.code == "read_only_space":
            (.failure, "you are a viewer of this folder's space: your local changes are kept here and not uploaded "
             + "(`notes status` lists them); they upload once the owner makes you an editor")
        case .status(let status):
            (.failure, status.description)
        case .answerTooLarge(let cause), .redirectRefused(let cause):
            (.failure, cause.description)
        case .contentMismatch(let path):
            (.failure, "the server sent \(Terminal.printable(path)) with content that does not match its hash "
             + "(damaged on the way, or a faulty server); refused it")
        case .noteOverLimit(let path, let bytes, let limit):
            (.failure, "the server sent \(Terminal.printable(path)) with \(bytes) bytes, over its "
             + "published note limit of \(limit) bytes; refused it")
        case .answerNotUnderstood(let what, let reason):
            (.failure, "the server's answer to \(what) was not understood (\(reason))")
        case .protocolViolation(let sentence):
            (.failure, sentence)
        case .invalidRequestPath(let path, let server):
            (.failure, "cannot build a URL for \(path) on \(server)")
        }
    }
}
