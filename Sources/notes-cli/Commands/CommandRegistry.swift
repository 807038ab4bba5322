/// Every subcommand, in the order `notes --help` lists them. Add a command by adding its type here.
enum CommandRegistry {
    static let all: [any Command.Type] = [
        LoginCommand.self,
        LogoutCommand.self,
        WhoamiCommand.self,
        ListCommand.self,
        CatCommand.self,
        SearchCommand.self,
        TokenCommand.self,
        CloneCommand.self,
        InitCommand.self,
        SyncCommand.self,
        StatusCommand.self,
        RenderCommand.self,
        ExportCommand.self,
        VersionCommand.self,
        LogCommand.self,
        RestoreCommand.self,
        TrashCommand.self,
        PurgeCommand.self,
        ConflictsCommand.self,
        ResolveCommand.self,
    ]

    static func command(named name: String) -> (any Command.Type)? {
        all.first { $0.name == name }
    }
}
