import Foundation
import NotesCore

/// `notes cat`: the exact bytes of one or more notes, to stdout.
struct CatCommand: Command {
    static let name = "cat"
    static let summary = "Print notes from the server"
    static let help = """
        Usage: notes cat PATH... [--server URL] [--username NAME]

        Prints each note's exact bytes to stdout, in the order given. The notes are fetched
        in parallel and each is checked against its hash. A path with no note is reported on
        stderr, the others are still printed, and the exit code is 1. On a terminal, control
        characters other than tab and line breaks are shown as \\u{1b} and the like, so a note
        cannot steer the terminal; piped or redirected, the bytes are exact.

        Options:
        \(CommandSupport.serverHelp)
        """

    /// At most this many notes are fetched at once, so a long list does not open hundreds of
    /// requests together.
    static let parallelism = 32

    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode {
        let account = try CommandSupport.AccountOptions.parse(&arguments)
        var paths: [NotePath] = []
        while let raw = arguments.positional() {
            do { paths.append(try NotePath(raw)) } catch { throw CLIError.usage("'\(raw)' is not a note path: \(error)") }
        }
        try arguments.finish()
        guard !paths.isEmpty else { throw CLIError.usage("missing PATH") }
        let client = try CommandSupport.client(account, terminal)

        let contents = try await fetch(paths, with: client)
        var missing = false
        let toTerminal = terminal.stdoutIsTTY
        for (path, content) in zip(paths, contents) {
            if let content {
                if toTerminal {
                    terminal.write(Terminal.printable(String(decoding: content, as: UTF8.self), keepingLayout: true))
                } else {
                    FileHandle.standardOutput.write(content)
                }
            } else {
                terminal.printError("notes cat: no note at \(path.value)")
                missing = true
            }
        }
        return missing ? .failure : .success
    }

    /// Each path's bytes (nil when no note has that path), in the order of `paths`.
    /// Any other failure (sign-in, network, server error) stops the whole command.
    private static func fetch(_ paths: [NotePath], with client: APIClient) async throws -> [Data?] {
        try await withThrowingTaskGroup(of: (Int, Data?).self) { group in
            var results = [Data?](repeating: nil, count: paths.count)
            var next = 0
            func startNext() {
                guard next < paths.count else { return }
                let index = next, path = paths[index]
                next += 1
                group.addTask { (index, try await content(of: path, with: client)) }
            }
            for _ in 0..<min(parallelism, paths.count) { startNext() }
            while let (index, data) = try await group.next() {
                results[index] = data
                startNext()
            }
            return results
        }
    }

    private static func content(of path: NotePath, with client: APIClient) async throws -> Data? {
        guard let note = try await client.note(atPath: path) else { return nil }
        do {
            return try await client.rawContent(of: note.id)
        } catch let error as APIStatusError where error.status == 404 {
            return nil  // deleted between the lookup and the fetch
        }
    }
}
