/// The command tree flattened for the completion scripts: every command with its path, what
/// follows it (subcommands or positional words) and the options it takes.
///
/// All three scripts find the command being typed the same way: walk the words typed so far,
/// skip options and the value after each option that takes one, and descend at each word that
/// names a subcommand of the command reached.
struct CompletionModel {
    struct Node {
        /// `"token create"`; `""` for the program itself.
        var path: String
        var options: [OptionSpec]
        /// The subcommands offered after this command, with their one-line descriptions.
        var subcommands: [(name: String, abstract: String)]
        /// How a word that is not an option completes: the first positional's kind (a second
        /// positional, such as clone's DIR, completes as the first does; good enough for a shell).
        var positional: ValueKind?
    }

    let program: String
    let nodes: [Node]

    init(program: String, root: CommandSpec) {
        self.program = program
        var nodes: [Node] = []
        func visit(_ spec: CommandSpec, _ path: [String]) {
            // `help` takes a command path, so below it the tree is walked again: `help token <TAB>`
            // offers token's subcommands, and a command with none offers nothing more.
            if path == ["help"] { return topics(root, path) }
            nodes.append(Node(path: path.joined(separator: " "), options: ParsedCommand.scope(of: path, in: root),
                              subcommands: spec.subcommands.map { ($0.name, $0.abstract) }, positional: spec.positionals.first?.kind))
            for sub in spec.subcommands { visit(sub, path + [sub.name]) }
        }
        func topics(_ spec: CommandSpec, _ path: [String]) {
            nodes.append(Node(path: path.joined(separator: " "), options: ParsedCommand.scope(of: ["help"], in: root),
                              subcommands: spec.subcommands.map { ($0.name, $0.abstract) }, positional: nil))
            for sub in spec.subcommands { topics(sub, path + [sub.name]) }
        }
        visit(root, [])
        self.nodes = nodes
    }

    /// Every path below the program, for the "is this word a subcommand?" test of the walk.
    var commandPaths: [String] { nodes.map(\.path).filter { !$0.isEmpty } }

    /// Every spelling of an option that takes a value (`--db`, `-u`), whose next word the walk skips.
    var valueOptionSpellings: [String] {
        var spellings = Set<String>()
        for node in nodes {
            for option in node.options where option.kind != nil { spellings.formUnion(option.spellings) }
        }
        return spellings.sorted()
    }

    /// Every spelling of every option of `node`, `-h`/`--help` included.
    static func spellings(_ node: Node) -> [String] {
        node.options.flatMap(\.spellings) + ["--help", "-h"]
    }

    /// The bash and zsh lines from inside the loop over the words typed so far to the opening of
    /// the `case "$cmdpath"` that picks the command's words: the walk (a value option skips its
    /// value; a word that extends a command path descends), then the `case "$cmdpath|$prev"` that
    /// completes an option's value with `action`.
    func walkAndOptionValues(_ action: (ValueKind) -> String) -> [String] {
        [
            "        case \"$word\" in",
            "            \(Self.alternatives(valueOptionSpellings))) ((i++)); continue ;;",
            "            -*) continue ;;",
            "        esac",
            "        next=\"${cmdpath:+$cmdpath }$word\"",
            "        case \"$next\" in",
            "            \(Self.alternatives(commandPaths))) cmdpath=\"$next\" ;;",
            "        esac",
            "    done",
            "    case \"$cmdpath|$prev\" in",
        ] + optionValueCases(action) + ["    esac", "    case \"$cmdpath\" in"]
    }

    /// The bash and zsh `case "$cmdpath|$prev"` arms: after an option that takes a value, in a
    /// command that accepts it, run `action`'s completion of that value and return.
    func optionValueCases(_ action: (ValueKind) -> String) -> [String] {
        nodes.flatMap { node in
            node.options.compactMap { option in
                option.kind.map { kind in
                    let keys = option.spellings.map { Self.quoted(node.path + "|" + $0) }.joined(separator: "|")
                    return "        \(keys)) \(action(kind)); return ;;"
                }
            }
        }
    }

    /// `a|b|c` for a bash or zsh `case` pattern, each quoted; a pattern that matches nothing when empty.
    static func alternatives(_ words: [String]) -> String {
        words.isEmpty ? "''" : words.map(quoted).joined(separator: "|")
    }

    /// What the bash and zsh scripts keep in `kind` for a command's positional: how a word completes
    /// when the command has no subcommands and the positional has no fixed words.
    static func kindWord(_ kind: ValueKind?) -> String {
        switch kind {
        case .file?: "file"
        case .directory?: "directory"
        default: ""
        }
    }

    /// The first line of a help text: the one-line description a shell shows beside a word.
    static func firstLine(_ text: String) -> String {
        text.split(separator: "\n").first.map(String.init) ?? ""
    }

    /// The name of the shell function: `notes-server` → `notes_server`.
    var identifier: String {
        String(program.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// `text` inside single quotes for bash and zsh.
    static func quoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }
}

extension OptionSpec {
    /// How the option may be typed: `--name`, then `-s` when it has a short alias.
    var spellings: [String] {
        ["--" + name] + (short.map { ["-\($0)"] } ?? [])
    }
}
