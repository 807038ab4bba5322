import Foundation
import NotesCommandLine
import NotesTestSupport
import Testing

@Suite("Completion scripts made from the tree")
struct CompletionScriptTests {
    @Test("the bash script is valid and completes commands, subcommands after an option, options and choices")
    func bashCompletes() throws {
        let script = SampleTree.program.completionScript(.bash)
        #expect(try Shell.run("bash", ["-n"], script: script).status == 0)
        #expect(try complete(script, ["tool", ""]) == ["user", "sync", "cat", "export", "help", "completion"])
        #expect(try complete(script, ["tool", "--db", "user", "user", "l"]) == ["list"])
        #expect(try complete(script, ["tool", "sync", "--scope", ""]) == ["read", "write"])
        #expect(try complete(script, ["tool", "sync", "--j"]) == ["--json"])
        #expect(try complete(script, ["tool", "completion", ""]) == ["bash", "zsh", "fish"])
        #expect(try complete(script, ["tool", "help", "sy"]) == ["sync"])
        #expect(try complete(script, ["tool", "help", "user", ""]) == ["list", "add"])
        #expect(try complete(script, ["tool", "help", "user", "list", ""]) == [])
    }

    @Test("the zsh script is valid zsh and completes subcommands after an option, choices and folders",
          .enabled(if: Shell.exists("zsh"), "zsh is not installed"))
    func zshCompletes() throws {
        let script = SampleTree.program.completionScript(.zsh)
        let check = try Shell.run("zsh", ["-n"], script: script)
        #expect(check.status == 0, "\(check.output)")
        #expect(script.contains("'list:List users'") && script.contains("compdef _tool tool"))
        // zsh's completion functions replaced by ones that print what they were offered.
        let stubs = """
            compdef() { : }
            _describe() { local entry; for entry in "${(@P)4}"; do print -r -- "${entry%%:*}"; done }
            compadd() { shift; print -l -- "$@" }
            _files() { print -r -- "files $*" }

            """
        func complete(_ words: [String]) throws -> [String] {
            let driver = stubs + script + "\nwords=(\(words.map { "'\($0)'" }.joined(separator: " "))); CURRENT=\(words.count); _tool\n"
            return try Shell.run("zsh", [], script: driver).output.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["tool", "--db", "x", "user", ""]) == ["list", "add"])
        #expect(try complete(["tool", "sync", "--scope", ""]) == ["read", "write"])
        #expect(try complete(["tool", "sync", ""]) == ["files -/"])
        #expect(try complete(["tool", "sync", "--l"]).contains("--limit"))
    }

    @Test("the fish script is valid fish and completes subcommands and choices", .enabled(if: Shell.exists("fish"), "fish is not installed"))
    func fishCompletes() throws {
        let script = SampleTree.program.completionScript(.fish)
        #expect(try Shell.run("fish", ["-n"], script: script).status == 0)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString).fish")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let subcommands = try Shell.run("fish", ["-c", "source \(file.path); complete -C 'tool --db x user '"], script: nil)
        #expect(subcommands.output.split(separator: "\n").map { $0.split(separator: "\t")[0] } == ["add", "list"], "\(subcommands.output)")
        let choices = try Shell.run("fish", ["-c", "source \(file.path); complete -C 'tool sync --scope '"], script: nil)
        #expect(choices.output.split(separator: "\n").map { $0.split(separator: "\t")[0] } == ["read", "write"], "\(choices.output)")
    }

    /// What the bash function offers with `words` typed, the cursor on the last one.
    private func complete(_ script: String, _ words: [String]) throws -> [String] {
        let array = words.map { "'" + $0 + "'" }.joined(separator: " ")
        let driver = script + "\nCOMP_WORDS=(\(array)); COMP_CWORD=\(words.count - 1); _tool; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
        return try Shell.run("bash", [], script: driver).output.split(separator: "\n").map(String.init)
    }
}

/// Runs a shell on a script given on stdin.
enum Shell {
    static func exists(_ name: String) -> Bool {
        ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + name) }
    }

    static func run(_ shell: String, _ arguments: [String], script: String?) throws -> (status: Int32, output: String) {
        let child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/env"), [shell] + arguments,
                                     environment: ProcessInfo.processInfo.environment,
                                     stdin: .pipe, stdout: .pipe, stderr: .sameAsStandardOutput)
        // Both are pipes, as asked just above.
        let (input, output) = (child.standardInput!, child.standardOutput!)
        if let script { input.write(Data(script.utf8)) }
        try input.close()
        let data = output.readDataToEndOfFile()
        let status = child.waitUntilExit()
        return (status, String(decoding: data, as: UTF8.self))
    }
}
