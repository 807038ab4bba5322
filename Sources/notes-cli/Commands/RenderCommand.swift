import Foundation
import NotesCommandLine
import NotesCore

/// `notes render [FILE|-]`: one note's HTML on stdout, so scripts can pipe Markdown through it.
struct RenderCommand: Command {
    static let spec = CommandSpec(
        "render", abstract: "Render a Markdown file (or stdin) to HTML on stdout",
        discussion: """
            Writes the HTML of one note to stdout: the fragment, or with --standalone a complete page
            (title from the first heading, else the file name; stylesheet inline). Reads stdin when
            FILE is -, or missing while stdin is not a terminal. Rendering is CommonMark 0.30 by cmark.
            """,
        usage: ["[FILE|-] [--standalone] [--unsafe]"],
        options: [
            .flag("standalone", help: "A full HTML page instead of a fragment"),
            .flag("unsafe", help: """
                Let raw HTML and every link scheme through. Only for your own trusted notes: by default raw \
                HTML is omitted and javascript:, vbscript:, file: and non-image data: links are emptied, so a \
                note cannot run script.
                """),
        ],
        positionals: [PositionalSpec("FILE", .file, .optional)])

    let standalone: Bool
    let unsafe: Bool
    let named: String?

    init(_ parsed: ParsedCommand) {
        standalone = parsed.flag("standalone")
        unsafe = parsed.flag("unsafe")
        named = parsed.positional("FILE")
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        // With no file and a person at the keyboard, waiting silently for stdin looks like a hang.
        if named == nil, terminal.stdinIsTTY {
            throw CLIError.usage("name a Markdown file to render, or - to read it from stdin")
        }
        let file = named ?? "-"

        let markdown = try Self.read(file)
        let renderer = MarkdownRenderer(allowsUnsafeHTML: unsafe)
        guard standalone else {
            try renderer.withHTML(from: markdown) { try terminal.write(bytes: $0) }
            return .success
        }
        let rendered = renderer.render(markdown)
        let fileName = file == "-" ? "Untitled" : URL(fileURLWithPath: file).lastPathComponent
        let page = HTMLPage(title: rendered.title(orFileName: fileName), bodyHTML: rendered.html, allowsScripts: unsafe)
        terminal.write(page.render())
        return .success
    }

    /// The bytes of `file`, or of stdin for `-`.
    private static func read(_ file: String) throws(CLIError) -> Data {
        if file == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), isFolder.boolValue {
            throw .failure("cannot read \(file): it is a folder (to render a folder, use `notes export --html`)")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw .failure("cannot read \(file): \(fileSystemReason(error))")
        }
    }
}
