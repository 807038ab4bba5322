import Foundation
import NotesCommandLine
@testable import NotesServer
import NotesTestSupport
import Testing

/// `notes-server`'s command line, declared once: the tree is sound, every command reads what it
/// declares, and the real binary parses, helps and completes from it.
@Suite("notes-server command line")
struct ServerCommandLineTests {
    @Test("every command and option has help, and no name is taken twice")
    func treeIsSound() {
        #expect(CommandTreeAudit.problems(in: ServerCommandLine.program.root) == [])
    }

    @Test("every runnable command is an AdminCommand and reads every option and positional it declares")
    func everyDeclaredNameIsRead() {
        let root = ServerCommandLine.program.root
        for path in CommandTreeAudit.leafPaths(of: ServerCommandLine.tree) {
            guard let command = ServerCommandLine.command(at: path) as? any AdminCommand.Type else {
                Issue.record("\(path) does not run")
                continue
            }
            let parsed = CommandTreeAudit.minimalParse(of: path, in: root)
            _ = try? command.init(parsed)
            #expect(parsed.namesRead == parsed.namesDeclared, "\(path): reads \(parsed.namesRead.sorted())")
        }
    }

    @Test("--db works before and after the command, with a space or =")
    func databaseOptionAnywhere() async throws {
        try await LiveServer.with(account: .added) { server, _ in
            for arguments in [["--db", server.databaseLocation, "user", "list"], ["user", "--db=\(server.databaseLocation)", "list"],
                              ["user", "list", "--db", server.databaseLocation]] {
                let result = try await ProcessRunner.run(BuiltProducts.server, arguments)
                #expect(result.exitCode == 0, "\(arguments): \(result.stderr)")
                #expect(result.stdout.hasPrefix(TestAccount.username + "\t"), "\(arguments): \(result.stdout)")
            }
        }
    }

    @Test("help CMD SUB and SUB --help print that subcommand's help, not the group's", arguments: [
        ["help", "user", "add"], ["user", "add", "--help"], ["--db", "x.sqlite", "user", "add", "-h"],
    ])
    func subcommandHelp(_ arguments: [String]) async throws {
        let result = try await ProcessRunner.run(BuiltProducts.server, arguments)
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Usage: notes-server user add NAME [--password-stdin] [--create-dirs] [--db PATH]\n"), "\(result.stdout)")
        #expect(result.stdout.contains("--password-stdin") && !result.stdout.contains("--json"))
    }

    @Test("serve --help describes --db as a SQLite file or the PostgreSQL backend's URL, both served")
    func databaseOptionHelp() async throws {
        let result = try await ProcessRunner.run(BuiltProducts.server, ["serve", "--help"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let flattened = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flattened.contains("or a postgres:// URL for the PostgreSQL backend several servers share"), "\(result.stdout)")
        #expect(!flattened.contains("not served yet"), "\(result.stdout)")
    }

    @Test("an option of another subcommand is refused naming where it goes, exit 2")
    func misplacedOption() async throws {
        let result = try await ProcessRunner.run(BuiltProducts.server, ["user", "add", "ann", "--json", "--db", "/nonexistent/x.sqlite"])
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains("--json is not an option of `notes-server user add`; it goes with `notes-server user list`, "
                                       + "`notes-server sessions list`"), "\(result.stderr)")
        #expect(result.stderr.contains("See `notes-server user add --help`."))
    }

    @Test("serve takes durations with a unit for its lifetimes, and refuses a malformed one with exit 2")
    func serveDurations() async throws {
        let server = try await TestServer(extraArguments: ["--access-token-ttl", "1h", "--refresh-idle-ttl", "30d", "--login-window", "900"])
        _ = await server.stop()
        let bad = try await ProcessRunner.run(BuiltProducts.server, ["serve", "--access-token-ttl", "1y", "--listen", "127.0.0.1:0"])
        #expect(bad.exitCode == 2)
        #expect(bad.stderr.contains("--access-token-ttl takes a duration such as 45s, 90m, 1h, 30d or 2w"), "\(bad.stderr)")
    }

    @Test("completion scripts list the commands and options", arguments: CommandLineProgram.Shell.allCases)
    func completionScripts(_ shell: CommandLineProgram.Shell) async throws {
        let result = try await ProcessRunner.run(BuiltProducts.server, ["completion", shell.rawValue])
        #expect(result.exitCode == 0)
        for word in ["serve", "user", "sessions", "backup", "revoke", "--db", "trusted-proxy"] {
            #expect(result.stdout.contains(word), "\(shell): \(word)")
        }
    }

    @Test("the bash completion script is valid bash")
    func bashScriptIsValid() async throws { try await checkSyntax(.bash) }

    @Test("the zsh completion script is valid zsh", .enabled(if: shellExists("zsh"), "zsh is not installed (scripts/install-deps --for-tests installs it)"))
    func zshScriptIsValid() async throws { try await checkSyntax(.zsh) }

    @Test("the fish completion script is valid fish", .enabled(if: shellExists("fish"), "fish is not installed (scripts/install-deps --for-tests installs it)"))
    func fishScriptIsValid() async throws { try await checkSyntax(.fish) }

    private func checkSyntax(_ shell: CommandLineProgram.Shell) async throws {
        let script = try await ProcessRunner.run(BuiltProducts.server, ["completion", shell.rawValue]).stdout
        let check = try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), [shell.rawValue, "-n"], stdin: script)
        #expect(check.exitCode == 0, "\(shell): \(check.stderr)")
    }
}

/// Whether `name` is an installed shell.
func shellExists(_ name: String) -> Bool {
    ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + name) }
}
