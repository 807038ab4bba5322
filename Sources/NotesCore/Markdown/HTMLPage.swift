/// A complete HTML page around a rendered note: what `notes render --standalone`, the static
/// export and the server's `?standalone=1` all serve, so a note looks the same everywhere.
///
/// The page is a pure function of its fields (no dates, no generator version), which keeps
/// exports byte-for-byte deterministic.
public struct HTMLPage: Sendable {
    /// Where the page finds its stylesheet.
    public enum Stylesheet: Sendable {
        /// A `<style>` element, for a single self-contained page.
        case inline
        /// A `<link rel="stylesheet">` to this (already URL-encoded) relative address.
        case linked(href: String)
    }

    /// The page title as plain text (it is escaped here).
    public var title: String
    /// The rendered note: trusted HTML from `MarkdownRenderer`, inserted as is.
    public var bodyHTML: String
    public var stylesheet: Stylesheet
    /// A URL-encoded address of the page listing every note, shown as a link above the note.
    public var indexHref: String?
    /// Whether the page may run scripts. False adds a Content-Security-Policy that forbids them,
    /// a second wall behind safe-mode rendering (only the page's own typesetting scripts, from
    /// its own folder, are allowed); only `--unsafe` output lifts it.
    public var allowsScripts: Bool
    /// The typesetting files (KaTeX, highlight.js) the page loads when its body shows math or
    /// code, from `assetsHref`; nil: none, math shows as TeX and code unhighlighted.
    public var assets: PageAssets?
    /// The URL-encoded relative address of the folder holding `assets` (`../assets/`).
    public var assetsHref: String

    public init(title: String, bodyHTML: String, stylesheet: Stylesheet = .inline,
                indexHref: String? = nil, allowsScripts: Bool = false, assets: PageAssets? = nil, assetsHref: String = "assets/") {
        self.title = title
        self.bodyHTML = bodyHTML
        self.stylesheet = stylesheet
        self.indexHref = indexHref
        self.allowsScripts = allowsScripts
        self.assets = assets
        self.assetsHref = assetsHref
    }

    /// The page as one HTML document.
    public func render() -> String {
        // The page is the body plus about 500 bytes: grown once, not doubled several times.
        var page = ""
        page.reserveCapacity(bodyHTML.utf8.count + title.utf8.count + 640)
        page += """
            <!DOCTYPE html>
            <html>
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">

            """
        let typesetting = assets?.headHTML(for: PageAssets.Needs(bodyHTML: bodyHTML), href: assetsHref) ?? ""
        if !allowsScripts {
            // With typesetting, scripts from the page's own origin (on file://, its own files).
            page += typesetting.isEmpty
                ? #"<meta http-equiv="Content-Security-Policy" content="script-src 'none'; object-src 'none'; base-uri 'none'">"#
                : #"<meta http-equiv="Content-Security-Policy" content="script-src 'self'; object-src 'none'; base-uri 'none'">"#
            page += "\n"
        }
        page += "<title>\(HTMLEscaping.escape(title))</title>\n"
        switch stylesheet {
        case .inline: page += "<style>\n\(NotesStylesheet.css)</style>\n"
        case .linked(let href): page += "<link rel=\"stylesheet\" href=\"\(HTMLEscaping.escape(href))\">\n"
        }
        page += typesetting
        page += "</head>\n<body>\n"
        if let indexHref {
            page += "<nav><a href=\"\(HTMLEscaping.escape(indexHref))\">All notes</a></nav>\n"
        }
        page += "<main>\n\(bodyHTML)</main>\n</body>\n</html>\n"
        return page
    }
}

/// Escaping for text placed into HTML, so a title or path from a note can never become markup.
public enum HTMLEscaping {
    /// `text` with `& < > " '` replaced by character references: safe in element content and in
    /// quoted attribute values alike.
    public static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else {
            return text
        }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
