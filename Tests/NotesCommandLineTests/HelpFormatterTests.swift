import NotesCommandLine
import Testing

@Suite("Help made from the tree")
struct HelpFormatterTests {
    @Test("a subcommand's help is its own: usage, discussion, its options and the inherited ones")
    func subcommandHelp() {
        let help = SampleTree.program.help(for: ["user", "add"])
        #expect(help.hasPrefix("Usage: tool user add NAME [--password-stdin] [--db PATH]\n\nAdds NAME.\n"), "\(help)")
        #expect(help.contains("--password-stdin") && help.contains("--db PATH") && help.contains("-h, --help"))
        #expect(!help.contains("--json") && !help.contains("--version"))
    }

    @Test("a group's help lists its commands; the program's lists every command and help and completion")
    func groupHelp() {
        let group = SampleTree.program.help(for: ["user"])
        #expect(group.hasPrefix("Usage: tool user <list|add> [options]"), "\(group)")
        #expect(group.contains("Commands:\n  list") && group.contains("  add "))
        let top = SampleTree.program.help(for: [])
        #expect(top.hasPrefix("tool: A tool to test the parser with.\n\nUsage: tool <command> [options]"), "\(top)")
        for name in ["user", "sync", "cat", "help", "completion", "--version"] { #expect(top.contains(name), "\(name)") }
    }

    @Test("defaults, choices and the epilogue appear; long usage lines collapse to [options]")
    func optionDetails() {
        let help = SampleTree.program.help(for: ["sync"])
        #expect(help.contains("--limit N") && help.contains("At most N (default: 20)"))
        #expect(help.contains("--scope read|write"))
        #expect(help.contains("-l, --long"))
        #expect(help.hasSuffix("Exit codes: 0 synced, 1 failure.\n"))
        #expect(help.hasPrefix("Usage: tool sync [DIR] [options]\n"), "\(help)")
        #expect(help.split(separator: "\n").allSatisfy { $0.count <= 96 && $0.last != " " })
    }
}

@Suite("Auditing a command tree")
struct CommandTreeAuditTests {
    @Test("the sample tree is sound and its runnable commands are its leaves")
    func soundTree() {
        #expect(CommandTreeAudit.problems(in: SampleTree.program.root) == [])
        #expect(CommandTreeAudit.leafPaths(of: SampleTree.root) == [["user", "list"], ["user", "add"], ["sync"], ["cat"], ["export"]])
    }

    @Test("a missing abstract or help, a name taken twice and a misplaced repeating positional are found")
    func problemsAreFound() {
        let bad = CommandSpec("bad", abstract: "", options: [.flag("json", help: ""), .flag("json", short: "h", help: "x")],
                              positionals: [PositionalSpec("A", .string, .repeating(required: false)), PositionalSpec("B")])
        let root = CommandSpec("tool", abstract: "A tool", options: [.flag("all", help: "All", inherited: true)], subcommands: [bad, bad])
        #expect(Set(CommandTreeAudit.problems(in: root)) == [
            "`tool bad` has no abstract", "--json of `tool bad` has no help", "`tool bad` takes --json twice",
            "`tool bad` takes -h twice", "`tool` has two commands called bad", "`tool bad`: the repeating A is not last",
        ])
    }
}
