import NotesCommandLine

/// A command that reads the signed-in account's data and prints it, as text or, with `--json`,
/// as JSON: its options are the account's (`--server`, `--username`) and `--json`.
protocol AccountReadingCommand: Command {
    init(account: CommandSupport.AccountOptions, json: Bool)
}

extension AccountReadingCommand {
    init(_ parsed: ParsedCommand) {
        self.init(account: CommandSupport.AccountOptions(parsed), json: parsed.flag("json"))
    }
}
