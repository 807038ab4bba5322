import Foundation
import NotesCommandLine
import NotesCore

/// `notes published`: which notes have a live link.
struct PublishedCommand: AccountReadingCommand {
    static let spec = CommandSpec(
        "published", abstract: "List your published notes",
        discussion: """
            Shows each published note's path, when it was published, when its link expires and
            whether search engines may index it: on a terminal with a header and aligned columns,
            elsewhere one tab-separated line per note without a header (or --json). The links
            themselves cannot be shown again; `notes publish PATH` makes a new one.
            """,
        options: [.flag("json", help: "Print {\"publications\": [...]} as JSON")] + CommandSupport.spaceAccountOptions)

    let account: CommandSupport.AccountOptions
    let json: Bool

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let client = try await HistoryTarget.client(for: try HistoryTarget.boundFolder(around: FileManager.default.currentDirectoryPath),
                                                    account: account, terminal)
        let publications = try await client.publications()
        if json {
            // The list never carries links, but make sure of it rather than trust the server.
            let stripped = publications.map { var publication = $0; publication.url = nil; publication.token = nil; return publication }
            try CommandSupport.printJSON(PublicationList(publications: stripped), terminal)
            return .success
        }
        var table = TextTable(header: ["PATH", "PUBLISHED", "EXPIRES", "INDEXABLE"])
        for publication in publications {
            table.append([terminal.shownName(publication.path), HistoryTarget.shortTime(publication.createdAt),
                          publication.expiresAt.map(HistoryTarget.shortTime) ?? "-", publication.indexable ? "yes" : "no"])
        }
        terminal.write(table.render(forTerminal: terminal.stdoutIsTTY))
        return .success
    }
}
