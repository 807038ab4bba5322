import NotesCommandLine
import Testing

@Suite("Parsing a command line against the tree")
struct CommandLineParserTests {
    @Test("an inherited option works before and after the subcommand, with a space or =")
    func inheritedOptionBeforeOrAfter() throws {
        for arguments in [["--db", "x.sqlite", "user", "list"], ["user", "list", "--db", "x.sqlite"],
                          ["user", "--db=x.sqlite", "list"], ["--db=x.sqlite", "user", "list", "--json"]] {
            let parsed = try SampleTree.run(arguments)
            #expect(parsed.path == ["user", "list"], "\(arguments)")
            #expect(parsed.value("db") == "x.sqlite", "\(arguments)")
        }
    }

    @Test("an option of a subcommand may come before the subcommand's name")
    func subcommandOptionBeforeItsName() throws {
        let parsed = try SampleTree.run(["user", "--json", "list"])
        #expect(parsed.path == ["user", "list"] && parsed.flag("json"))
    }

    @Test("-- ends the options: what follows is positional even when it starts with a dash")
    func doubleDashEndsOptions() throws {
        let parsed = try SampleTree.run(["cat", "a.md", "--", "--json", "-x", "--"])
        #expect(parsed.positionals("PATH") == ["a.md", "--json", "-x", "--"])
    }

    @Test("a repeatable option keeps every value in order; a one-value option keeps the last")
    func repeatedOptions() throws {
        let parsed = try SampleTree.run(["sync", "--proxy", "10.0.0.0/8", "--proxy=::1", "-u", "ann", "--username", "bob"])
        #expect(parsed.values("proxy") == ["10.0.0.0/8", "::1"])
        #expect(parsed.value("username") == "bob")
    }

    @Test("short flags alone or run together, and a short option with its value")
    func shortOptions() throws {
        let parsed = try SampleTree.run(["sync", "-ly", "-u", "ann", "notes"])
        #expect(parsed.flag("long") && parsed.flag("yes") && !parsed.flag("json"))
        #expect(parsed.value("username") == "ann")
        #expect(parsed.positional("DIR") == "notes")
        #expect(SampleTree.usageError(["sync", "-ul", "ann"])?.message == "-u needs a value, so it goes last in -ul")
        guard case .help(["sync"]) = try SampleTree.program.parse(["sync", "-lh"]) else {
            Issue.record("-h among short flags does not ask for help")
            return
        }
    }

    @Test("- alone is a positional word (stdin by convention)")
    func dashAloneIsAWord() throws {
        #expect(try SampleTree.run(["sync", "-"]).positional("DIR") == "-")
    }

    @Test("values are checked by kind: whole numbers, durations, choices; a default fills in")
    func valueKinds() throws {
        let parsed = try SampleTree.run(["sync", "--expires-in", "30d", "--scope", "read"])
        #expect(parsed.duration("expires-in") == 30 * 86_400)
        #expect(parsed.value("scope") == "read")
        #expect(parsed.int("limit") == 20)
        #expect(try SampleTree.run(["sync", "--limit", "5"]).int("limit") == 5)
        #expect(SampleTree.usageError(["sync", "--limit", "many"])?.message == "--limit takes a whole number, not 'many'")
        #expect(SampleTree.usageError(["sync", "--expires-in", "1y"])?.message.contains("takes a duration such as 45s, 90m, 1h, 30d or 2w") == true)
        #expect(SampleTree.usageError(["sync", "--scope", "admin"])?.message == "--scope is read or write, not 'admin'")
        #expect(SampleTree.usageError(["sync", "--scope", "wrte"])?.message == "--scope is read or write, not 'wrte'; did you mean `write`?")
    }

    @Test("a flag refuses a value, a value option needs one")
    func arityErrors() {
        #expect(SampleTree.usageError(["sync", "--json=yes"])?.message == "--json takes no value")
        #expect(SampleTree.usageError(["sync", "--limit"])?.message == "--limit needs a value")
    }

    @Test("a mistyped command suggests the nearest, at the top and inside a group")
    func commandSuggestions() {
        let top = SampleTree.usageError(["synk"])
        #expect(top?.message == "unknown command 'synk'; did you mean `sync`?")
        #expect(top?.command == [])
        let nested = SampleTree.usageError(["--db", "x", "user", "lst"])
        #expect(nested?.message == "unknown user command 'lst'; did you mean `list`?")
        #expect(nested?.report(program: "tool") == "tool user: unknown user command 'lst'; did you mean `list`?\nSee `tool user --help`.")
        #expect(SampleTree.usageError(["frobnicate"])?.message == "unknown command 'frobnicate'")
    }

    @Test("a swap of two neighbouring letters is one edit: sycn suggests sync, lgo suggests log")
    func transpositionsSuggest() {
        #expect(SampleTree.usageError(["sycn"])?.message == "unknown command 'sycn'; did you mean `sync`?")
        #expect(SampleTree.usageError(["user", "lsit"])?.message == "unknown user command 'lsit'; did you mean `list`?")
        #expect(SampleTree.usageError(["sync", "--jsno"])?.message == "unknown option --jsno; did you mean `--json`?")
        #expect(Suggestion.nearest(to: "lgo", in: ["login", "logout", "log", "ls"]) == "log")
        #expect(Suggestion.nearest(to: "stauts", in: ["status", "sync"]) == "status")
        #expect(Suggestion.nearest(to: "tcsh", in: ["bash", "zsh", "fish"]) == nil)
    }

    @Test("a required option left out is reported, and a word in its place is suggested as its value")
    func missingRequiredOption() throws {
        #expect(SampleTree.usageError(["export", "site", "notes"])?.message == "missing --html OUTDIR; did you mean `--html site`?")
        #expect(SampleTree.usageError(["export", "site"])?.message == "missing --html OUTDIR; did you mean `--html site`?")
        #expect(SampleTree.usageError(["export"])?.message == "missing --html OUTDIR")
        let parsed = try SampleTree.run(["export", "--html", "site", "notes"])
        #expect(parsed.value("html") == "site" && parsed.positional("DIR") == "notes")
        guard case .help(["export"]) = try SampleTree.program.parse(["export", "--help"]) else {
            Issue.record("--help without the required option does not show the help")
            return
        }
        #expect(SampleTree.program.help(for: ["export"]).contains("Usage: tool export [DIR] --html OUTDIR"))
    }

    @Test("a mistyped option suggests the nearest option of the command")
    func optionSuggestions() {
        let error = SampleTree.usageError(["sync", "--jsn"])
        #expect(error?.message == "unknown option --jsn; did you mean `--json`?")
        #expect(error?.command == ["sync"])
        #expect(SampleTree.usageError(["sync", "--frobnicate"])?.message == "unknown option --frobnicate")
        #expect(SampleTree.usageError(["sync", "-q"])?.message == "unknown option -q")
    }

    @Test("an option of another command says which command it goes with")
    func optionOfAnotherCommand() {
        #expect(SampleTree.usageError(["user", "add", "ann", "--json"])?.message
                == "--json is not an option of `tool user add`; it goes with `tool user list`, `tool sync`")
        #expect(SampleTree.usageError(["sync", "--version"])?.message == "--version is not an option of `tool sync`; it goes with `tool`")
    }

    @Test("positionals: missing, extra, optional and repeating")
    func positionals() throws {
        #expect(SampleTree.usageError(["cat"])?.message == "missing PATH")
        #expect(SampleTree.usageError(["user", "add"])?.message == "missing NAME")
        #expect(SampleTree.usageError(["user", "add", "ann", "bob"])?.message == "unexpected argument 'bob'")
        #expect(try SampleTree.run(["sync"]).positional("DIR") == nil)
        #expect(try SampleTree.run(["user", "add", "--password-stdin", "ann"]).positional("NAME") == "ann")
    }

    @Test("a group needs one of its commands")
    func groupNeedsACommand() {
        #expect(SampleTree.usageError(["user"])?.message == "missing a user command (list, add)")
    }

    @Test("no command runs the program itself, with its own options")
    func programItself() throws {
        let parsed = try SampleTree.run(["--version"])
        #expect(parsed.path == [] && parsed.flag("version"))
    }

    @Test("--help and -h ask for the help of the command they follow, also next to an error")
    func helpRequests() throws {
        for (arguments, path) in [(["sync", "--help"], ["sync"]), (["user", "add", "-h"], ["user", "add"]),
                                  (["--help"], []), (["help", "user", "add"], ["user", "add"]), (["help"], []),
                                  (["sync", "--bogus", "--help"], ["sync"]), (["user", "--help"], ["user"])] {
            guard case .help(let asked) = try SampleTree.program.parse(arguments) else {
                Issue.record("\(arguments) is not a help request")
                continue
            }
            #expect(asked == path, "\(arguments)")
        }
        #expect(SampleTree.usageError(["help", "user", "lst"])?.message == "unknown user command 'lst'; did you mean `list`?")
        // After `--`, --help is a word like any other.
        #expect(try SampleTree.run(["cat", "--", "--help"]).positionals("PATH") == ["--help"])
    }

    @Test("completion takes one of the shells")
    func completionCommand() throws {
        guard case .completion(let shell) = try SampleTree.program.parse(["completion", "fish"]) else {
            Issue.record("not a completion request")
            return
        }
        #expect(shell == .fish)
        #expect(SampleTree.usageError(["completion", "tcsh"])?.message == "SHELL is bash, zsh or fish, not 'tcsh'")
    }

    @Test("a parse result records which names its command read")
    func readsAreRecorded() throws {
        let parsed = try SampleTree.run(["user", "add", "ann"])
        _ = parsed.positional("NAME")
        _ = parsed.flag("password-stdin")
        #expect(parsed.namesRead == ["NAME", "password-stdin"])
        #expect(parsed.namesDeclared == ["NAME", "password-stdin", "db"])
    }
}
