import Foundation
import NotesCommandLine
@testable import notes_cli
import NotesCore
import NotesTestSupport
import Testing

/// `notes`'s command line, declared once: the tree is sound, every command reads what it
/// declares, and the real binary helps, suggests and completes from it.
@Suite("notes command line")
struct CommandLineTreeTests {
    @Test("every command and option has help, and no name is taken twice")
    func treeIsSound() {
        #expect(CommandTreeAudit.problems(in: CLI.program.root) == [])
    }

    @Test("every runnable command is a Command and reads every option and positional it declares")
    func everyDeclaredNameIsRead() {
        for path in CommandTreeAudit.leafPaths(of: CLI.tree) {
            guard let command = CLI.command(at: path) as? any Command.Type else {
                Issue.record("\(path) does not run")
                continue
            }
            let parsed = CommandTreeAudit.minimalParse(of: path, in: CLI.program.root)
            _ = try? command.init(parsed)
            #expect(parsed.namesRead == parsed.namesDeclared, "\(path): reads \(parsed.namesRead.sorted())")
        }
    }

    @Test("SUB --help and help CMD SUB print that subcommand's help, not the group's", arguments: [
        (["sync", "--help"], "Usage: notes sync [DIR] [--dry-run] [--json] [--allow-mass-delete]\n"),
        (["help", "token", "create"], "Usage: notes token create NAME --scope read|write"),
        (["token", "create", "-h"], "Usage: notes token create NAME --scope read|write"),
        (["token", "--server", "http://x", "revoke", "--help"], "Usage: notes token revoke ID"),
        (["help", "sync"], "Usage: notes sync [DIR]"),
    ])
    func subcommandHelp(_ arguments: [String], _ usage: String) async throws {
        let result = try await ProcessRunner.run(BuiltProducts.client, arguments)
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix(usage), "\(result.stdout)")
    }

    @Test("a mistyped command or option suggests the nearest, exit 2")
    func typosSuggest() async throws {
        let command = try await ProcessRunner.run(BuiltProducts.client, ["synk"])
        #expect(command.exitCode == 2)
        #expect(command.stderr == "notes: unknown command 'synk'; did you mean `sync`?\nSee `notes --help`.\n", "\(command.stderr)")
        let option = try await ProcessRunner.run(BuiltProducts.client, ["sync", "--dryrun"])
        #expect(option.exitCode == 2)
        #expect(option.stderr.contains("unknown option --dryrun; did you mean `--dry-run`?"), "\(option.stderr)")
        #expect(option.stderr.contains("See `notes sync --help`."))
        let nested = try await ProcessRunner.run(BuiltProducts.client, ["token", "lst"])
        #expect(nested.exitCode == 2)
        #expect(nested.stderr.contains("unknown token command 'lst'; did you mean `list`?"), "\(nested.stderr)")
    }

    @Test("a swap of neighbouring letters still suggests the command: sycn → sync, lgo → log")
    func transposedCommandsSuggest() async throws {
        for (typed, meant) in [("sycn", "sync"), ("lgo", "log"), ("stauts", "status")] {
            let result = try await ProcessRunner.run(BuiltProducts.client, [typed])
            #expect(result.exitCode == 2)
            #expect(result.stderr.hasPrefix("notes: unknown command '\(typed)'; did you mean `\(meant)`?\n"), "\(result.stderr)")
        }
    }

    @Test("export without --html before the output folder suggests --html, exit 2, writing nothing")
    func exportWithoutHTMLSuggestsIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await ProcessRunner.run(BuiltProducts.client, ["export", "site", "notes"], currentDirectory: directory.url)
        #expect(result.exitCode == 2)
        #expect(result.stderr == "notes export: missing --html OUTDIR; did you mean `--html site`?\nSee `notes export --help`.\n", "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test("a malformed duration is a usage error naming the forms it takes")
    func badDuration() async throws {
        let result = try await ProcessRunner.run(BuiltProducts.client, ["token", "create", "ci", "--scope", "read", "--expires-in", "tomorrow"])
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains("--expires-in takes a duration such as 45s, 90m, 1h, 30d or 2w (a bare number is seconds), not 'tomorrow'"),
                "\(result.stderr)")
        #expect(result.stderr.contains("See `notes token create --help`."))
    }

    @Test("token create --expires-in 30d creates a token that expires in thirty days, against a real server")
    func tokenCreateTakesADuration() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let created = try await harness.notes(["token", "create", "ci", "--scope", "read", "--expires-in", "30d", "--json"])
            #expect(created.exitCode == 0, "\(created.stderr)")
            let token = try WireJSON.decoder().decode(PersonalTokenResource.self, from: Data(created.stdout.utf8))
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let createdAt = try #require(formatter.date(from: token.createdAt))
            let expires = try #require(token.expiresAt.flatMap { formatter.date(from: $0) })
            #expect(abs(expires.timeIntervalSince(createdAt) - 30 * 86_400) < 5, "\(token.createdAt) → \(token.expiresAt ?? "-")")
        }
    }

    @Test("completion scripts name the commands, subcommands and choices", arguments: CommandLineProgram.Shell.allCases)
    func completionScripts(_ shell: CommandLineProgram.Shell) async throws {
        let result = try await ProcessRunner.run(BuiltProducts.client, ["completion", shell.rawValue])
        #expect(result.exitCode == 0)
        for word in ["sync", "token", "create", "revoke", "--expires-in", "theirs"] {
            #expect(result.stdout.contains(word), "\(shell): \(word)")
        }
    }

    @Test("the bash completion completes subcommands and choices of the real tree")
    func bashCompletesTheRealTree() async throws {
        let script = try await ProcessRunner.run(BuiltProducts.client, ["completion", "bash"]).stdout
        #expect(try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["bash", "-n"], stdin: script).exitCode == 0)
        func complete(_ words: [String]) async throws -> [String] {
            let array = words.map { "'\($0)'" }.joined(separator: " ")
            let driver = script + "\nCOMP_WORDS=(\(array)); COMP_CWORD=\(words.count - 1); _notes; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
            return try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["bash"], stdin: driver).stdout
                .split(separator: "\n").map(String.init)
        }
        #expect(try await complete(["notes", "token", "--server", "http://x", ""]) == ["create", "list", "revoke"])
        #expect(try await complete(["notes", "resolve", "--keep", ""]) == ["mine", "theirs", "both"])
        #expect(try await complete(["notes", "sy"]) == ["sync"])
    }

    @Test("the zsh completion script is valid zsh", .enabled(if: hasShell("zsh"), "zsh is not installed (scripts/install-deps --for-tests installs it)"))
    func zshScriptIsValid() async throws {
        let script = try await ProcessRunner.run(BuiltProducts.client, ["completion", "zsh"]).stdout
        let check = try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["zsh", "-n"], stdin: script)
        #expect(check.exitCode == 0, "\(check.stderr)")
    }

    @Test("the fish completion script is valid fish", .enabled(if: hasShell("fish"), "fish is not installed (scripts/install-deps --for-tests installs it)"))
    func fishScriptIsValid() async throws {
        let script = try await ProcessRunner.run(BuiltProducts.client, ["completion", "fish"]).stdout
        let check = try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["fish", "-n"], stdin: script)
        #expect(check.exitCode == 0, "\(check.stderr)")
    }
}

private func hasShell(_ name: String) -> Bool {
    ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + name) }
}
