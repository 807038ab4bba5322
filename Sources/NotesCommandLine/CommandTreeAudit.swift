/// Checks a whole command tree for what would make its help or parsing wrong, for the tests of
/// each program: every command and option explains itself, and no name is taken twice where
/// the parser would have to pick one.
public enum CommandTreeAudit {
    /// One sentence per problem found; empty for a sound tree.
    public static func problems(in root: CommandSpec) -> [String] {
        var problems: [String] = []
        visit(root, path: []) { spec, path in
            let name = ([root.name] + path).joined(separator: " ")
            if spec.abstract.isEmpty { problems.append("`\(name)` has no abstract") }
            let scope = ParsedCommand.scope(of: path, in: root)
            for option in scope where option.help.isEmpty { problems.append("--\(option.name) of `\(name)` has no help") }
            problems += duplicates(scope.map(\.name) + ["help"]).map { "`\(name)` takes --\($0) twice" }
            problems += duplicates(scope.compactMap(\.short).map(String.init) + ["h"]).map { "`\(name)` takes -\($0) twice" }
            problems += duplicates(spec.subcommands.map(\.name)).map { "`\(name)` has two commands called \($0)" }
            problems += duplicates(spec.positionals.map(\.name)).map { "`\(name)` has two positionals called \($0)" }
            for positional in spec.positionals.dropLast() {
                if case .repeating = positional.count { problems.append("`\(name)`: the repeating \(positional.name) is not last") }
            }
            if !spec.subcommands.isEmpty, !spec.positionals.isEmpty, !path.isEmpty {
                problems.append("`\(name)` has both commands and positionals")
            }
            for option in scope {
                if case .choice(let words)? = option.kind, words.isEmpty { problems.append("--\(option.name) of `\(name)` has no choices") }
            }
        }
        return problems
    }

    /// The paths of every command that runs (has no subcommands), in tree order.
    public static func leafPaths(of root: CommandSpec) -> [[String]] {
        var paths: [[String]] = []
        visit(root, path: []) { spec, path in
            if spec.subcommands.isEmpty, !path.isEmpty { paths.append(path) }
        }
        return paths
    }

    /// A parse result for the command at `path` with nothing given but its required positionals
    /// (as `X`), for calling a command's reading code in a test.
    public static func minimalParse(of path: [String], in root: CommandSpec) -> ParsedCommand {
        let spec = root.descendant(path)
        var words: [String: [String]] = [:]
        for positional in spec?.positionals ?? [] {
            switch positional.count {
            case .required, .repeating(required: true): words[positional.name] = ["X"]
            default: break
            }
        }
        return ParsedCommand(path: path, in: root, positionals: words)
    }

    private static func visit(_ spec: CommandSpec, path: [String], _ body: (CommandSpec, [String]) -> Void) {
        body(spec, path)
        for sub in spec.subcommands { visit(sub, path: path + [sub.name], body) }
    }

    private static func duplicates(_ names: [String]) -> [String] {
        var seen = Set<String>(), twice = Set<String>()
        for name in names where !seen.insert(name).inserted { twice.insert(name) }
        return twice.sorted()
    }
}
