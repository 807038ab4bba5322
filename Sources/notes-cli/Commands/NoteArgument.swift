import NotesCommandLine

/// The note a history command is about: its PATH argument together with the account options
/// (`--server`, `--username`) that pick whom to ask, opened as one `HistoryTarget`.
struct NoteArgument: Sendable {
    let account: CommandSupport.AccountOptions
    /// PATH as typed: inside a bound folder, relative to the current directory.
    let raw: String

    init(_ parsed: ParsedCommand) {
        account = CommandSupport.AccountOptions(parsed)
        raw = parsed.argument("PATH")
    }

    /// Where PATH points, and the client that answers for it.
    func open(_ terminal: Terminal) async throws -> HistoryTarget {
        try await HistoryTarget.open(raw, account: account, terminal)
    }
}
