/// A type that declares one command of a program and, for a group, the types of its
/// subcommands, as swift-argument-parser's `ParsableCommand` does: the tree is built from the
/// types, so a command's declaration and its code live side by side in one file, and the
/// command a parse result chose is found by walking the same types.
public protocol DeclaredCommand {
    /// This command's declaration; its `subcommands` are filled in from `subcommands`.
    static var spec: CommandSpec { get }
    /// The commands below this one, in the order help lists them.
    static var subcommands: [any DeclaredCommand.Type] { get }
}

extension DeclaredCommand {
    public static var subcommands: [any DeclaredCommand.Type] { [] }

    /// The declaration with the whole tree below it.
    public static var tree: CommandSpec {
        var spec = spec
        spec.subcommands = subcommands.map { $0.tree }
        return spec
    }

    /// The type declaring the command at `path` below this one (itself for `[]`).
    public static func command(at path: [String]) -> (any DeclaredCommand.Type)? {
        guard let first = path.first else { return self }
        return subcommands.first { $0.spec.name == first }?.command(at: Array(path.dropFirst()))
    }
}
