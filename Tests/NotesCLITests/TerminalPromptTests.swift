import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The no-echo password prompt (`SecretPrompt`) on a real pseudo-terminal: the built binaries
/// are driven by `Tests/Scripts/pty_session.py`, which types as a person would.
@Suite("Password prompt on a terminal", .enabled(if: TerminalSession.pythonAvailable))
struct TerminalPromptTests {
    @Test("notes login on a terminal asks for the user name, reads the password without echoing it, and signs in")
    func loginPromptDoesNotEcho() async throws {
        try await LiveServer.with(account: .added) { harness in
            let session = try await TerminalSession.run(
                [("Username for", "ada\r"), ("Password for ada on", TestAccount.password + "\r")],
                BuiltProducts.client, ["login", "--server", harness.serverURL], environment: harness.environment)
            #expect(session.status == 0, "\(session.output)")
            #expect(session.output.contains("ada"), "the user name is echoed")
            #expect(!session.output.contains(TestAccount.password), "the password was echoed: \(session.output)")
            #expect(session.output.contains("Signed in to \(harness.serverURL) as ada."))
            #expect(session.echoRestored)
            #expect(try harness.storedSession()?.username == "ada")
        }
    }

    @Test("Ctrl-C at the password prompt ends login by SIGINT and leaves the terminal echoing")
    func interruptRestoresEcho() async throws {
        let home = try TemporaryDirectory("notes-home")
        defer { home.remove() }
        let session = try await TerminalSession.run([("Password for ada on", "half-typed\u{03}")], BuiltProducts.client,
                                                    ["login", "--server", "http://127.0.0.1:9", "--username", "ada"],
                                                    environment: ["HOME": home.path])
        #expect(session.status == -SIGINT, "\(session.output)")
        #expect(!session.output.contains("half-typed"))
        #expect(session.echoRestored)
    }

    @Test("notes-server user add asks twice without echo through the same prompt, and the password works")
    func serverUserAddPromptDoesNotEcho() async throws {
        try await LiveServer.with(account: .added) { harness in
            let password = "tyrannosaurus in the kitchen"
            let session = try await TerminalSession.run([("New password:", password + "\r"), ("Repeat it:", password + "\r")],
                                                        BuiltProducts.server, ["user", "add", "bob", "--db", harness.server.databaseLocation])
            #expect(session.status == 0, "\(session.output)")
            #expect(!session.output.contains(password))
            #expect(session.output.contains("Added user bob."))
            #expect(session.echoRestored)
            let login = try await harness.notes(["login", "--server", harness.serverURL, "--username", "bob", "--password-stdin"],
                                                stdin: password + "\n")
            #expect(login.exitCode == 0, "\(login.stderr)")
        }
    }
}

/// One run of a program on a pseudo-terminal, as `pty_session.py` reports it.
struct TerminalSession: Decodable {
    var output: String
    /// The exit status; minus the signal number when a signal ended it.
    var status: Int32
    var echoRestored: Bool

    enum CodingKeys: String, CodingKey {
        case output, status
        case echoRestored = "echo_restored"
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/pty_session.py")

    static var pythonAvailable: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/python3")
        }
    }

    /// Runs `executable` on a fresh pty: for each step, waits for `expect` and types `send`.
    static func run(_ steps: [(expect: String, send: String)], _ executable: URL, _ arguments: [String],
                    environment: [String: String] = [:]) async throws -> TerminalSession {
        // A crash on a terminal would otherwise wait 30 s for a key in the interactive backtracer.
        // The script reads Python escapes; a backslash in what we type must reach it as one.
        let script = steps.flatMap { [$0.expect, $0.send.replacingOccurrences(of: "\\", with: "\\\\")] }
        let result = try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"),
                                                 ["python3", Self.script.path] + script + ["--", executable.path] + arguments,
                                                 environment: environment.merging(["SWIFT_BACKTRACE": "interactive=no"]) { $1 })
        guard result.exitCode == 0, let session = try? JSONDecoder().decode(TerminalSession.self, from: Data(result.stdout.utf8)) else {
            throw TerminalSessionError(description: "pty_session.py failed: \(result.stdout) \(result.stderr)")
        }
        return session
    }
}

/// The pty driver itself failed (it never saw a prompt, or could not start).
struct TerminalSessionError: Error, CustomStringConvertible {
    var description: String
}
