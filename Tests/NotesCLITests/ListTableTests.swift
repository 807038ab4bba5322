import Foundation
import NotesCommandLine
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The client's lists in one table style: on a
/// terminal a header and aligned columns, into a pipe tab-separated lines without a header, as
/// scripts read them before; `--json` unchanged. Real binaries, and a pty from util-linux `script`.
@Suite("List tables", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs util-linux `script` for a pty"))
struct ListTableTests {
    @Test func lsLongAndTokenListHaveAHeaderOnATerminalOnly() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let api = try harness.apiClient()
            let note = try await api.putNote(NoteID(), PutNoteRequest(path: "plans/week.md", content: "hello\n"), ifMatch: nil)
            #expect(try await harness.notes(["token", "create", "backup-script", "--scope", "read"]).exitCode == 0)

            // Into a pipe: exactly the lines scripts parsed before, no header.
            let piped = try await harness.notes(["ls", "-l"])
            #expect(piped.exitCode == 0, "\(piped.stderr)")
            #expect(piped.stdout == "\(note.rev)\t6\t\(note.updatedAt)\tplans/week.md\tnote\n")
            let tokensPiped = try await harness.notes(["token", "list"])
            #expect(tokensPiped.exitCode == 0, "\(tokensPiped.stderr)")
            let tokenLines = tokensPiped.stdout.split(separator: "\n")
            #expect(tokenLines.count == 1 && tokenLines[0].split(separator: "\t").count == 6, "\(tokensPiped.stdout)")
            #expect(tokenLines.first?.contains("\tbackup-script\tread\t") == true)

            // On a terminal: a header, columns aligned under it.
            let ls = try await onTerminal(harness, "ls -l")
            #expect(ls.exitCode == 0, "\(ls.stderr)")
            let lsLines = ls.stdout.split(whereSeparator: \.isNewline)
            #expect(lsLines.count == 2, "\(ls.stdout.debugDescription)")
            #expect(lsLines.first?.hasPrefix("REV  SIZE  UPDATED") == true, "\(ls.stdout.debugDescription)")
            #expect(lsLines.first?.firstRange(of: "PATH")?.lowerBound.utf16Offset(in: lsLines[0])
                    == lsLines.last?.firstRange(of: "plans/week.md")?.lowerBound.utf16Offset(in: lsLines[1]))
            let tokens = try await onTerminal(harness, "token list")
            #expect(tokens.exitCode == 0, "\(tokens.stderr)")
            let tokensLines = tokens.stdout.split(whereSeparator: \.isNewline)
            #expect(tokensLines.count == 2 && tokensLines.first?.hasPrefix("ID  ") == true, "\(tokens.stdout.debugDescription)")
            #expect(tokensLines.first?.contains("NAME") == true && tokensLines.last?.contains("backup-script  read") == true)

            // --json is the same on a terminal and off it.
            let json = try await onTerminal(harness, "token list --json")
            let list = try WireJSON.decoder().decode(PersonalTokenList.self, from: Data(json.stdout.utf8))
            #expect(list.tokens.map(\.name) == ["backup-script"] && list.tokens.allSatisfy { $0.token == nil })
            let lsJSON = try await onTerminal(harness, "ls -l --json")
            #expect(try WireJSON.decoder().decode(ListCommand.Output.self, from: Data(lsJSON.stdout.utf8)).notes.map(\.path) == ["plans/week.md"])
        }
    }

    /// `notes ARGS` on a pseudo-terminal: `script` runs it there and copies what it printed.
    private func onTerminal(_ harness: LiveServer, _ arguments: String) async throws -> ProcessResult {
        try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/script"),
                                    ["-qec", "'\(BuiltProducts.client.path)' \(arguments)", "/dev/null"],
                                    environment: harness.environment)
    }

    @Test func tableAlignsOnATerminalAndIsTabSeparatedElsewhere() {
        var table = TextTable(header: ["REV", "PATH"])
        table.append(["12345", "a.md"])
        table.append(["7", "longer/b.md"])
        #expect(table.render(forTerminal: true) == "REV    PATH\n12345  a.md\n7      longer/b.md\n")
        #expect(table.render(forTerminal: false) == "12345\ta.md\n7\tlonger/b.md\n")
        #expect(TextTable(header: ["A"]).render(forTerminal: false).isEmpty)
    }
}
