import Foundation
import NotesCommandLine
import NotesCore

/// `notes render [FILE|-]`: one note's HTML on stdout, so scripts can pipe Markdown through it.
struct RenderCommand: Command {
    static let spec = CommandSpec(
        "render", abstract: "Render a Markdown file (or stdin) to HTML on stdout",
        discussion: """
            Writes the HTML of one note to stdout: the fragment, or with --standalone a complete page
            (titled by the front matter's title, else the first heading, else the file name;
            stylesheet inline). Reads stdin when FILE is -, or missing while stdin is not a terminal.

            Notes are read as their authors write them: CommonMark, GitHub's tables, task lists,
            strikethrough, autolinks and footnotes, and Obsidian's front matter (shown as a
            properties list; YAML that cannot be read shows as code, with a warning on stderr),
            callouts (> [!note] Title), ==highlights==, %%comments%%, #tags, $math$ and $$math$$
            (for KaTeX) and mermaid blocks (shown as labelled code). See "Writing notes" in the README.
            --commonmark turns all of that off: pure CommonMark 0.30 by cmark.

            Given a FILE, wiki links ([[Note]], [[Note|label]], [[folder/Note#Heading]], ![[image.png]])
            are resolved as Obsidian does, against the notes folder holding FILE (the nearest folder
            above it with a .notes folder, else FILE's own folder): by file name, .md (else .markdown)
            implied, the shortest path winning. They become relative links to the files (Note.md#heading); one that
            names no file is its plain text, with a warning on stderr. ![[Note]] and ![[Note#Heading]],
            alone on their line, show that note (or that section) in place, up to 4 notes deep; a
            note embedding itself, directly or not, shows a link instead. From stdin, [[...]] is its
            text.
            """,
        usage: ["[FILE|-] [--standalone] [--unsafe] [--commonmark]"],
        options: [
            .flag("standalone", help: "A full HTML page instead of a fragment"),
            .flag("commonmark", help: "Pure CommonMark 0.30: no tables, callouts, front matter, [[wiki links]] or other extensions"),
            .flag("unsafe", help: """
                Let raw HTML and every link scheme through. Only for your own trusted notes: by default raw \
                HTML is omitted and a javascript:, vbscript:, file: or non-image data: link renders as its \
                text, so a note cannot run script.
                """),
        ],
        positionals: [PositionalSpec("FILE", .file, .optional)])

    let standalone: Bool
    let unsafe: Bool
    let commonMark: Bool
    let named: String?

    init(_ parsed: ParsedCommand) {
        standalone = parsed.flag("standalone")
        unsafe = parsed.flag("unsafe")
        commonMark = parsed.flag("commonmark")
        named = parsed.positional("FILE")
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        // With no file and a person at the keyboard, waiting silently for stdin looks like a hang.
        if named == nil, terminal.stdinIsTTY {
            throw UsageError("name a Markdown file to render, or - to read it from stdin")
        }
        let file = named ?? "-"

        let markdown = try Self.read(file)
        // The file is the user's own, rendered on their own machine as the cmark CLI would: nesting
        // stays bounded (what makes a parser's time explode), the amount of markup only by the
        // file's size, so a long document renders rather than showing as text.
        let preflight = MarkdownPreflight(maxInlineNodes: max(MarkdownPreflight().maxInlineNodes, markdown.count + 1))
        let renderer = FlavouredRenderer(flavour: commonMark ? .commonMark : .default, allowsUnsafeHTML: unsafe, preflight: preflight)
        var extensions = MarkdownExtensions.commonMark
        // Listing the folder to resolve wiki links costs more than rendering: only when there are some.
        if file != "-", !commonMark, markdown.range(of: Data("[[".utf8)) != nil, let vault = Self.vault(holding: file) {
            extensions = vault.extensions(for: vault.notePath, shownIn: vault.notePath) { link in
                terminal.printError("notes render: [[\(link.target)]] names no note or file in \(vault.root)")
            }
        }
        if commonMark, !standalone {
            try MarkdownRenderer(allowsUnsafeHTML: unsafe, preflight: preflight).withHTML(from: markdown) { try terminal.write(bytes: $0) }
            return .success
        }
        let rendered: FlavouredRendering
        // A fragment goes to stdout straight from the renderer's buffer, never copied into a string.
        var outputError: (any Error)?
        do {
            rendered = standalone ? try renderer.render(markdown, extensions: extensions)
                : try renderer.render(markdown, extensions: extensions) { bytes in
                    guard outputError == nil else { return }
                    do { try terminal.write(bytes: bytes) } catch { outputError = error }
                }
        } catch {
            throw CLIError.failure(error.description)
        }
        if let outputError { throw outputError }
        if let line = rendered.frontMatter?.errorLine, let error = rendered.frontMatter?.error {
            terminal.printError("notes render: warning: \(file == "-" ? "stdin" : file), line \(line): front matter is not valid YAML "
                                + "(\(error.message)); shown as code")
        }
        guard standalone else { return .success }
        let fileName = file == "-" ? "Untitled" : URL(fileURLWithPath: file).lastPathComponent
        let page = HTMLPage(title: rendered.title(orFileName: fileName), bodyHTML: rendered.html, allowsScripts: unsafe)
        terminal.write(page.render())
        return .success
    }

    /// The folder wiki links in `file` resolve against, and `file`'s path in it.
    private struct Vault {
        var root: String
        var notePath: String
        var resolver: WikiLinkResolver

        /// What the note at `note` renders with when shown in the output for the note at
        /// `shown` (itself, or a note embedding it): wiki links and embeds resolved against the
        /// folder, destinations written from `shown`'s folder. `missing` hears of each wiki
        /// link that names no file in the note itself (an embedded note's are its own).
        func extensions(for note: String, shownIn shown: String, missing: @escaping (WikiLink) -> Void = { _ in }) -> MarkdownExtensions {
            var extensions = MarkdownExtensions.commonMark
            extensions.wikiLinks = { link in
                if let destination = resolver.destination(for: link, from: note) { return destination }
                missing(link)
                return nil
            }
            if note != shown {
                extensions.linkTreatment = { .rewrite(RelativeLink.rebase($0.url, from: note, to: shown)) }
            }
            extensions.noteEmbeds = NoteEmbeds(notePath: note) { link in
                guard let path = resolver.resolve(link.target, from: note), EntryKind(path: path) == .note,
                      let content = FileContents.read(atPath: root + "/" + path) else { return nil }
                return NoteEmbed(path: path, markdown: Array(content), extensions: self.extensions(for: path, shownIn: shown))
            }
            return extensions
        }
    }

    /// The notes folder holding `file`: the nearest folder above it with a `.notes` folder (a
    /// bound folder), else the file's own folder. Nil when it cannot be listed: the links then
    /// stay text rather than failing the render.
    private static func vault(holding file: String) -> Vault? {
        let real = FolderPaths.resolved(file)
        var folder = URL(fileURLWithPath: real).deletingLastPathComponent()
        let ownFolder = folder
        var root = ownFolder
        while folder.path != "/" {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(".notes").path, isDirectory: &isFolder), isFolder.boolValue {
                root = folder
                break
            }
            folder.deleteLastPathComponent()
        }
        guard let listing = try? FolderWalker(root: root.path, fileSuffix: "").walk() else { return nil }
        let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
        let notePath = String(real.dropFirst(real.hasPrefix(prefix) ? prefix.count : 0)).precomposedStringWithCanonicalMapping
        let files = listing.entries.map { $0.path.precomposedStringWithCanonicalMapping }
        return Vault(root: root.path, notePath: notePath, resolver: WikiLinkResolver(files: files))
    }

    /// The bytes of `file`, or of stdin for `-`.
    private static func read(_ file: String) throws(CLIError) -> Data {
        if file == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), isFolder.boolValue {
            throw .failure("cannot read \(file): it is a folder (to render a folder, use `notes export --html`)")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: file), options: .alwaysMapped)  // no copy of a large file
        } catch {
            throw .failure("cannot read \(file): \(fileSystemReason(error))")
        }
    }
}
