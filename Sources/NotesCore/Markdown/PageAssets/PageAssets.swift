import Foundation

/// The files rendered pages load to typeset math (KaTeX) and highlight code (highlight.js):
/// Debian's `libjs-katex` and `libjs-highlight.js` as installed on this machine, and our own
/// script that applies them (`notes-render.js`). The server serves them from its own origin
/// and export copies them into the site, so no page needs a CDN and an export works offline.
///
/// A library that is not installed is left out and named in `problems`: a page then shows the
/// TeX source of its math and its code unhighlighted, as it does without JavaScript.
public struct PageAssets: Sendable {
    /// One library's files, served and copied under one folder named with their hash.
    public struct Library: Sendable {
        /// What people call it: `KaTeX`, `highlight.js`.
        public let title: String
        /// Every file of it, the script and stylesheet first.
        public let files: [PageAsset]
        let script: PageAsset
        let stylesheet: PageAsset?
    }

    /// What a page's body needs typeset.
    public struct Needs: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `<span class="math …">`: KaTeX.
        public static let math = Needs(rawValue: 1)
        /// `<code class="language-NAME">` other than Mermaid: highlight.js.
        public static let code = Needs(rawValue: 2)
        public static let all: Needs = [.math, .code]

        /// What the rendered `bodyHTML` holds: math spans, fenced code with a language.
        public init(bodyHTML: String) {
            var html = bodyHTML
            self = html.withUTF8 { Needs(bodyHTML: $0) }
        }

        /// What the rendered HTML in `bodyHTML`'s bytes holds, searched byte for byte.
        init(bodyHTML: UnsafeBufferPointer<UInt8>) {
            self = []
            if ByteSearch.firstOffset(of: Self.mathMarker, in: bodyHTML) != nil { insert(.math) }
            var from = 0
            while let found = ByteSearch.firstOffset(of: Self.codeMarker, in: bodyHTML, from: from) {
                from = found + Self.codeMarker.utf8CodeUnitCount
                if !ByteSearch.holds(Self.mermaidLanguage, in: bodyHTML, at: from) {
                    insert(.code)
                    break
                }
            }
        }

        static let mathMarker: StaticString = "<span class=\"math math-"
        static let codeMarker: StaticString = "<code class=\"language-"
        /// A Mermaid block stays a labelled code block: nothing highlights it.
        static let mermaidLanguage: StaticString = "mermaid\""
    }

    /// KaTeX, when installed.
    public let katex: Library?
    /// highlight.js, when installed.
    public let highlight: Library?
    /// Ours: typesets every `.math` span and highlights every `pre code[class*=language-]`.
    public let script: PageAsset
    /// One sentence for each library that could not be read, for the log.
    public let problems: [String]

    /// Where Debian installs JavaScript libraries.
    public static let debianRoot = "/usr/share/javascript"

    /// The libraries installed here, read once per process.
    public static let installed = PageAssets(javascriptRoot: debianRoot)

    /// Reads the libraries under `javascriptRoot` (laid out as Debian's `/usr/share/javascript`).
    public init(javascriptRoot: String) {
        var problems: [String] = []
        func library(_ title: String, folder: String, servedAs: String, package: String, files: LibraryFiles, without: String) -> Library? {
            do {
                return try Self.readLibrary(title, root: javascriptRoot + "/" + folder, servedAs: servedAs, files: files)
            } catch {
                problems.append("\(title) is not installed (\(error.path) is missing; Debian package \(package)): \(without)")
                return nil
            }
        }
        katex = library("KaTeX", folder: "katex", servedAs: "katex", package: "libjs-katex",
                        files: LibraryFiles(script: "katex.min.js", stylesheet: "katex.min.css", fontFolder: "fonts"),
                        without: "math shows as its TeX source")
        highlight = library("highlight.js", folder: "highlight.js", servedAs: "highlight", package: "libjs-highlight.js",
                            files: LibraryFiles(script: "highlight.min.js"), without: "code shows without highlighting")
        script = PageAsset(name: Self.versionedName("notes-render", extension: "js", bytes: PackageResources.notes_render_js),
                           source: nil, bytes: PackageResources.notes_render_js)
        self.problems = problems
    }

    /// Every file to serve or copy: the libraries' and ours.
    public var files: [PageAsset] {
        (katex?.files ?? []) + (highlight?.files ?? []) + [script]
    }

    /// The files pages that need `needs` load (what `headHTML` names, fonts included): what an
    /// export copies.
    public func files(for needs: Needs) -> [PageAsset] {
        let libraries = loaded(for: needs)
        return libraries.isEmpty ? [] : libraries.flatMap(\.files) + [script]
    }

    /// The file served or copied as `name`, if there is one.
    public func file(named name: String) -> PageAsset? {
        files.first { $0.name == name }
    }

    /// The `<link>` and `<script>` elements a page's head needs to typeset `needs`, their
    /// addresses under `href` (`/assets/` on the server, `../assets/` in an export); empty when
    /// nothing is needed or nothing needed is installed. The scripts are deferred and run in
    /// order, the libraries before ours.
    public func headHTML(for needs: Needs, href: String) -> String {
        let libraries = loaded(for: needs)
        guard !libraries.isEmpty else { return "" }
        let base = HTMLEscaping.escape(href)
        var html = ""
        for library in libraries {
            if let stylesheet = library.stylesheet { html += "<link rel=\"stylesheet\" href=\"\(base)\(stylesheet.name)\">\n" }
        }
        for library in libraries { html += "<script src=\"\(base)\(library.script.name)\" defer></script>\n" }
        return html + "<script src=\"\(base)\(script.name)\" defer></script>\n"
    }

    /// The installed libraries `needs` calls for, KaTeX first.
    private func loaded(for needs: Needs) -> [Library] {
        var libraries: [Library] = []
        if needs.contains(.math), let katex { libraries.append(katex) }
        if needs.contains(.code), let highlight { libraries.append(highlight) }
        return libraries
    }

    /// The files of a library, relative to its folder.
    struct LibraryFiles {
        var script: String
        var stylesheet: String?
        /// Where the stylesheet's fonts are (`fonts/` beside it), if it has any.
        var fontFolder: String?
    }

    /// A file of a library that could not be read.
    struct MissingFile: Error {
        let path: String
    }

    private static func readLibrary(_ title: String, root: String, servedAs: String, files wanted: LibraryFiles) throws(MissingFile) -> Library {
        func contents(_ path: String) throws(MissingFile) -> [UInt8] {
            guard let data = FileManager.default.contents(atPath: root + "/" + path) else { throw MissingFile(path: root + "/" + path) }
            return Array(data)
        }
        var read: [(path: String, bytes: [UInt8])] = [(wanted.script, try contents(wanted.script))]
        if let stylesheet = wanted.stylesheet { read.append((stylesheet, try contents(stylesheet))) }
        if let fontFolder = wanted.fontFolder {
            // The stylesheet names each font in three formats; every browser that runs KaTeX
            // takes the first, WOFF2, so only those are served.
            let fonts = (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + fontFolder))?
                .filter { $0.hasSuffix(".woff2") }.sorted() ?? []
            guard !fonts.isEmpty else { throw MissingFile(path: root + "/" + fontFolder + "/*.woff2") }
            for font in fonts { read.append((fontFolder + "/" + font, try contents(fontFolder + "/" + font))) }
        }
        // The folder's name carries a hash of every file in it, names included.
        var listing: [UInt8] = []
        for (path, bytes) in read { listing += Array("\(path)\0\(SHA256.hex(of: bytes))\n".utf8) }
        let versioned = servedAs + "." + String(SHA256.hex(of: listing).prefix(12))
        let files = read.map { PageAsset(name: versioned + "/" + $0.path, source: root + "/" + $0.path, bytes: $0.bytes) }
        return Library(title: title, files: files, script: files[0], stylesheet: wanted.stylesheet == nil ? nil : files[1])
    }

    /// `stem.HASH.ext`, HASH the first 12 hex digits of the content's SHA-256.
    static func versionedName(_ stem: String, extension ext: String, bytes: [UInt8]) -> String {
        stem + "." + String(SHA256.hex(of: bytes).prefix(12)) + "." + ext
    }
}
