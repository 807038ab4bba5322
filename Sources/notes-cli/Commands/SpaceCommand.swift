import Foundation
import NotesCommandLine
import NotesCore

/// `notes space list|create|rename|delete|restore|purge|members|add|remove|leave`: spaces shared between
/// accounts, and their members (README, "Sharing").
enum SpaceCommand: DeclaredCommand {
    static let spec = CommandSpec(
        "space", abstract: "List, create and share spaces, and manage their members",
        discussion: """
            A space is a set of notes shared between accounts: its owner adds members as editor
            (read, write, delete, restore, publish) or viewer (read only). Name a space by its name,
            or by OWNER/NAME when two of yours share a name. Your personal space holds your own notes.
            """,
        options: CommandSupport.accountOptions.map { option in
            var option = option
            option.inherited = true
            return option
        })

    static var subcommands: [any DeclaredCommand.Type] {
        [List.self, Create.self, Rename.self, Delete.self, Restore.self, Purge.self, Members.self, Add.self, Remove.self, Leave.self]
    }

    /// `space list`.
    struct List: Command {
        static let spec = CommandSpec(
            "list", abstract: "List your spaces and your role in each",
            discussion: """
                Shows each space you are a member of as OWNER/NAME with your role, and the spaces you own
                that are in the trash: on a terminal with a header and aligned columns, elsewhere one
                tab-separated line per space without a header (or --json).
                """,
            options: [.flag("json", help: "Print {\"spaces\": [...]} as JSON")])

        let account: CommandSupport.AccountOptions
        let json: Bool

        init(_ parsed: ParsedCommand) {
            account = CommandSupport.AccountOptions(parsed)
            json = parsed.flag("json")
        }

        func run(_ terminal: Terminal) async throws -> ExitCode {
            let spaces = try await CommandSupport.client(account, terminal).spaces()
            if json {
                try CommandSupport.printJSON(SpaceList(spaces: spaces), terminal)
                return .success
            }
            var table = TextTable(header: ["SPACE", "ROLE", "STATE"])
            for space in spaces {
                let state = space.deletedAt == nil ? (space.personal ? "personal" : "-") : "in the trash"
                table.append([space.qualifiedName, space.role.rawValue, state].map { Terminal.printable($0) })
            }
            terminal.write(table.render(forTerminal: terminal.stdoutIsTTY))
            return .success
        }
    }

    /// `space create NAME`.
    struct Create: Command {
        static let spec = CommandSpec(
            "create", abstract: "Create a space that you own",
            positionals: [PositionalSpec("NAME", help: "Letters, digits, '.', '_' or '-'")])

        let account: CommandSupport.AccountOptions
        let name: String

        init(_ parsed: ParsedCommand) {
            account = CommandSupport.AccountOptions(parsed)
            name = parsed.argument("NAME")
        }

        func run(_ terminal: Terminal) async throws -> ExitCode {
            let space = try await CommandSupport.client(account, terminal).createSpace(named: name)
            terminal.print("Created space \(Terminal.printable(space.qualifiedName)).")
            return .success
        }
    }

    /// `space rename OLD NEW`.
    struct Rename: Command {
        static let spec = CommandSpec(
            "rename", abstract: "Rename a space you own",
            positionals: [PositionalSpec("OLD", help: "The space: NAME or OWNER/NAME"), PositionalSpec("NEW", help: "Its new name")])

        let account: CommandSupport.AccountOptions
        let old: String
        let new: String

        init(_ parsed: ParsedCommand) {
            account = CommandSupport.AccountOptions(parsed)
            old = parsed.argument("OLD")
            new = parsed.argument("NEW")
        }

        func run(_ terminal: Terminal) async throws -> ExitCode {
            try await SpaceCommand.change(old, account, terminal) { client, space in
                let renamed = try await client.renameSpace(space.id, to: new)
                return "Renamed \(Terminal.printable(space.qualifiedName)) to \(Terminal.printable(renamed.qualifiedName))."
            }
        }
    }

    /// `space delete NAME`.
    struct Delete: OneSpaceChange {
        static let spec = CommandSpec(
            "delete", abstract: "Move a space you own to the trash",
            discussion: "Every member loses access to it until you restore it (`notes space restore NAME`).",
            positionals: [PositionalSpec("NAME", help: "The space: NAME or OWNER/NAME")])

        let account: CommandSupport.AccountOptions
        let name: String

        func change(_ client: APIClient, _ space: SpaceResource) async throws -> String {
            try await client.deleteSpace(space.id)
            return "Moved \(Terminal.printable(space.qualifiedName)) to the trash."
        }
    }

    /// `space restore NAME`.
    struct Restore: OneSpaceChange {
        static let spec = CommandSpec(
            "restore", abstract: "Take a space you own out of the trash",
            discussion: "Its notes and members are as they were when you deleted it.",
            positionals: [PositionalSpec("NAME", help: "The space in the trash (see `notes space list`)")])
        static let inTrash = true

        let account: CommandSupport.AccountOptions
        let name: String

        func change(_ client: APIClient, _ space: SpaceResource) async throws -> String {
            let restored = try await client.restoreSpace(space.id)
            return "Restored \(Terminal.printable(restored.qualifiedName))."
        }
    }

    /// `space purge NAME`.
    struct Purge: OneSpaceChange {
        static let spec = CommandSpec(
            "purge", abstract: "Remove a space of yours in the trash for good",
            discussion: """
                Removes a space you deleted (`notes space delete NAME`) with its notes, history and
                attachments, which frees what it counted against your quota. It cannot be restored
                afterwards; a space not in the trash is never purged.
                """,
            positionals: [PositionalSpec("NAME", help: "The space in the trash (see `notes space list`)")])
        static let inTrash = true

        let account: CommandSupport.AccountOptions
        let name: String

        func change(_ client: APIClient, _ space: SpaceResource) async throws -> String {
            try await client.purgeSpace(space.id)
            return "Purged \(Terminal.printable(space.qualifiedName)): its notes, history and attachments are gone."
        }
    }

    /// `space members NAME`.
    struct Members: Command {
        static let spec = CommandSpec(
            "members", abstract: "List a space's members and their roles",
            options: [.flag("json", help: "Print {\"members\": [...]} as JSON")],
            positionals: [PositionalSpec("NAME", help: "The space: NAME or OWNER/NAME")])

        let account: CommandSupport.AccountOptions
        let name: String
        let json: Bool

        init(_ parsed: ParsedCommand) {
            account = CommandSupport.AccountOptions(parsed)
            name = parsed.argument("NAME")
            json = parsed.flag("json")
        }

        func run(_ terminal: Terminal) async throws -> ExitCode {
            let client = try CommandSupport.client(account, terminal)
            let members = try await client.spaceMembers(try await SpaceCommand.resolve(name, with: client).id)
            if json {
                try CommandSupport.printJSON(SpaceMemberList(members: members), terminal)
                return .success
            }
            var table = TextTable(header: ["USER", "ROLE", "ADDED"])
            for member in members {
                table.append([member.username, member.role.rawValue, member.addedAt].map { Terminal.printable($0) })
            }
            terminal.write(table.render(forTerminal: terminal.stdoutIsTTY))
            return .success
        }
    }

    /// `space add NAME USER --role editor|viewer`.
    struct Add: Command {
        static let spec = CommandSpec(
            "add", abstract: "Add a member to a space you own, or change a member's role",
            usage: ["NAME USER --role editor|viewer"],
            options: [.value("role", .choice(["editor", "viewer"]), placeholder: "ROLE", help: "editor or viewer (required)")],
            positionals: [PositionalSpec("NAME", help: "The space: NAME or OWNER/NAME"), PositionalSpec("USER", help: "The account's username")])

        let account: CommandSupport.AccountOptions
        let name: String
        let user: String
        let role: SpaceRole

        init(_ parsed: ParsedCommand) throws {
            account = CommandSupport.AccountOptions(parsed)
            name = parsed.argument("NAME")
            user = parsed.argument("USER")
            guard let role = parsed.value("role").flatMap(SpaceRole.init(rawValue:)) else {
                throw UsageError("add needs --role editor or --role viewer")
            }
            self.role = role
        }

        func run(_ terminal: Terminal) async throws -> ExitCode {
            try await SpaceCommand.change(name, account, terminal) { client, space in
                let member = try await client.setSpaceMember(space.id, username: user, role: role)
                return "\(Terminal.printable(member.username)) is \(member.role == .editor ? "an editor" : "a viewer") of \(Terminal.printable(space.qualifiedName))."
            }
        }
    }

    /// `space remove NAME USER`.
    struct Remove: Command {
        static let spec = CommandSpec(
            "remove", abstract: "Remove a member from a space you own",
            discussion: "Their next request on the space is refused, and their folders of it stop syncing.",
            positionals: [PositionalSpec("NAME", help: "The space: NAME or OWNER/NAME"), PositionalSpec("USER", help: "The member's username")])

        let account: CommandSupport.AccountOptions
        let name: String
        let user: String

        init(_ parsed: ParsedCommand) {
            account = CommandSupport.AccountOptions(parsed)
            name = parsed.argument("NAME")
            user = parsed.argument("USER")
        }

        func run(_ terminal: Terminal) async throws -> ExitCode {
            try await SpaceCommand.change(name, account, terminal) { client, space in
                try await client.removeSpaceMember(space.id, username: user)
                return "Removed \(Terminal.printable(user)) from \(Terminal.printable(space.qualifiedName))."
            }
        }
    }

    /// `space leave NAME`.
    struct Leave: OneSpaceChange {
        static let spec = CommandSpec(
            "leave", abstract: "Leave a space you are a member of",
            discussion: "Its owner leaves only after making another member the owner.",
            positionals: [PositionalSpec("NAME", help: "The space: NAME or OWNER/NAME")])

        let account: CommandSupport.AccountOptions
        let name: String

        func change(_ client: APIClient, _ space: SpaceResource) async throws -> String {
            try await client.leaveSpace(space.id)
            return "Left \(Terminal.printable(space.qualifiedName))."
        }
    }

    /// Resolves the space `name` (in the trash with `inTrash`), runs `body` on it and prints the
    /// sentence it returns: the run of every subcommand that changes one space.
    static func change(_ name: String, _ account: CommandSupport.AccountOptions, _ terminal: Terminal, inTrash: Bool = false,
                       _ body: (APIClient, SpaceResource) async throws -> String) async throws -> ExitCode {
        let client = try CommandSupport.client(account, terminal)
        terminal.print(try await body(client, try await resolve(name, with: client, inTrash: inTrash)))
        return .success
    }

    /// The live space `name` (NAME, or OWNER/NAME) among those the account is a member of; with
    /// `inTrash`, the one among the account's spaces in the trash.
    /// - Throws: `CLIError.failure` when none or several fit.
    static func resolve(_ name: String, with client: APIClient, inTrash: Bool = false) async throws -> SpaceResource {
        let spaces = try await client.spaces().filter { ($0.deletedAt != nil) == inTrash }
        let key = { (text: String) in NotePath.collisionKey(of: NotePath.nfc(text)) }
        let fits = spaces.filter { name.contains("/") ? key($0.qualifiedName) == key(name) : key($0.name) == key(name) }
        guard fits.count == 1, let space = fits.first else {
            if fits.isEmpty {
                let place = inTrash ? "you have no space in the trash named" : "you are a member of no space named"
                throw CLIError.failure("\(place) \(Terminal.printable(name)) (see `notes space list`)")
            }
            let choices = fits.map { Terminal.printable($0.qualifiedName) }.joined(separator: ", ")
            throw CLIError.failure("several of your spaces are named \(Terminal.printable(name)); name one as OWNER/NAME: \(choices)")
        }
        return space
    }
}

/// A `space` subcommand whose one argument, NAME, is the space it changes.
protocol OneSpaceChange: Command {
    var account: CommandSupport.AccountOptions { get }
    var name: String { get }
    init(account: CommandSupport.AccountOptions, name: String)
    /// Whether NAME is a space in the trash (restore, purge) rather than a live one.
    static var inTrash: Bool { get }
    /// Makes the change and returns the sentence that reports it.
    func change(_ client: APIClient, _ space: SpaceResource) async throws -> String
}

extension OneSpaceChange {
    init(_ parsed: ParsedCommand) {
        self.init(account: CommandSupport.AccountOptions(parsed), name: parsed.argument("NAME"))
    }

    static var inTrash: Bool { false }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        try await SpaceCommand.change(name, account, terminal, inTrash: Self.inTrash, change)
    }
}
