import NotesCommandLine
import NotesCore

/// `--space NAME`: which space a command on notes addresses outside a bound folder
/// (docs/architecture.md §4.2). Inside a bound folder the folder's space is used and `--space`
/// is refused, so a command never reads one space while the folder shows another.
extension CommandSupport {
    /// The account options and `--space`, for the commands on one space's notes.
    static let spaceAccountOptions: [OptionSpec] = accountOptions + [
        .value("space", placeholder: "NAME", help: """
            Outside a notes folder: the space (NAME, or OWNER/NAME when two of yours share a name; \
            default: your personal space). Inside one, the folder's space is used
            """),
    ]

    /// The client of `account` whose note requests address the space `--space` names (the
    /// personal space without it).
    /// - Throws: `CLIError.failure` when no space, or several, of that name are the account's.
    static func client(inSpaceOf account: AccountOptions, _ terminal: Terminal) async throws -> APIClient {
        let client = try client(account, terminal)
        guard let name = account.space else { return client }
        let space = try await SpaceCommand.resolve(name, with: client)
        return await client.inSpace(space.personal ? nil : space.id)
    }

    /// Refuses `--space` for a command that uses the bound folder `folder` and its space.
    static func refuseSpace(_ account: AccountOptions, in folder: SyncFolder) throws(UsageError) {
        guard let name = account.space else { return }
        throw UsageError("--space \(Terminal.printable(name)) is for use outside a notes folder: \(folder.root) "
                         + "syncs its own space (run the command elsewhere, or with --server/--username)")
    }
}
