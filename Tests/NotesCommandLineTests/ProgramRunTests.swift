import NotesCommandLine
import Testing

@Suite("The run loop both programs share")
struct ProgramRunTests {
    /// What a run wrote, stdout and stderr apart.
    final class Captured: CommandLineOutput {
        var stdout = ""
        var stderr = ""
        func write(_ text: String) { stdout += text }
        func printError(_ line: String) { stderr += line + "\n" }
    }

    struct Refused: Error {}

    /// Runs `arguments` through the sample program, whose commands do what `command` says and
    /// whose failures are exit 7 with the sentence "refused".
    static func run(_ arguments: [String], command: (ParsedCommand) throws -> Int32? = { _ in 0 }) -> (Int32, Captured) {
        let output = Captured()
        let code = SampleTree.program.run(arguments, output: output, version: "tool 1.0", command: command,
                                          outcome: { _ in (7, "refused") })
        return (code, output)
    }

    @Test("help and completion print to stdout and exit 0 without running a command")
    func helpAndCompletion() {
        let (help, helped) = Self.run(["user", "add", "--help"]) { _ in Issue.record("ran"); return 1 }
        #expect(help == 0 && helped.stdout == SampleTree.program.help(for: ["user", "add"]) && helped.stderr.isEmpty)
        let (completion, completed) = Self.run(["completion", "fish"]) { _ in Issue.record("ran"); return 1 }
        #expect(completion == 0 && completed.stdout == SampleTree.program.completionScript(.fish))
    }

    @Test("a command line that does not parse is exit 2 with the command's help named on stderr")
    func parseError() {
        let (code, output) = Self.run(["sync", "--bogus"])
        #expect(code == 2)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.hasPrefix("tool sync: ") && output.stderr.hasSuffix("\nSee `tool sync --help`.\n"), "\(output.stderr)")
    }

    @Test("a usage error the command throws names that command, as a parse error does")
    func usageErrorFromTheCommand() {
        let (code, output) = Self.run(["user", "add", "ada"]) { _ in throw UsageError("NAME is taken") }
        #expect(code == 2)
        #expect(output.stderr == "tool user add: NAME is taken\nSee `tool user add --help`.\n")
    }

    @Test("any other failure is the program's exit code and sentence after the command's name")
    func failure() {
        let (code, output) = Self.run(["cat", "a.md"]) { _ in throw Refused() }
        #expect(code == 7)
        #expect(output.stderr == "tool cat: refused\n")
    }

    @Test("the command's own exit code is the program's")
    func commandExitCode() {
        #expect(Self.run(["cat", "a.md"]) { _ in 3 }.0 == 3)
    }

    @Test("the program alone prints its version with --version (exit 0), else its commands (exit 2)")
    func programAlone() {
        let (version, versioned) = Self.run(["--version"]) { _ in nil }
        #expect(version == 0 && versioned.stdout == "tool 1.0\n")
        let (bare, listed) = Self.run([]) { _ in nil }
        #expect(bare == 2 && listed.stdout == SampleTree.program.help(for: []))
    }

    @Test("the async run answers as the blocking one does")
    func asyncRun() async {
        let output = Captured()
        let code = await SampleTree.program.run(["sync", "x"], output: output, version: "tool 1.0", command: { parsed in
            await Task.yield()
            throw UsageError("\(parsed.positional("DIR") ?? "") is not a folder")
        }, outcome: { _ in (7, "refused") })
        #expect(code == 2)
        #expect(output.stderr == "tool sync: x is not a folder\nSee `tool sync --help`.\n")
    }
}
