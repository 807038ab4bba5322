import NotesCore

/// A fragment of HTML that is safe to send: built only from template literals written in this
/// codebase, with every interpolated `String` escaped on the way in.
///
/// This is the whole templating approach: a page is a Swift string literal of type `HTML`;
/// `\(someString)` escapes (`&`, `<`, `>`, `"`, `'`), so user text can only ever land in text or
/// in a quoted attribute value, never as markup; `\(someHTML)` embeds a fragment already made
/// safe the same way. There is no way to interpolate a raw `String` as markup: the one door for
/// markup that did not come from a literal is `HTML(rendered:)`, kept for the Markdown renderer's
/// safe output. Attribute values are always written quoted in templates (`href="\(url)"`), and
/// URLs come from `WebPath`, never from user text as a whole.
struct HTML: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The markup.
    private(set) var text: String

    init(stringLiteral value: String) {
        text = value
    }

    init(stringInterpolation: Interpolation) {
        text = stringInterpolation.text
    }

    /// The cmark renderer's output in safe mode (raw HTML dropped, unsafe links refused): the
    /// one source of markup that is not a template literal.
    init(rendered html: String) {
        text = html
    }

    /// No markup at all.
    static let empty: HTML = ""

    var description: String { text }

    /// Two fragments one after the other.
    static func + (lhs: HTML, rhs: HTML) -> HTML {
        HTML(rendered: lhs.text + rhs.text)
    }

    /// Fragments one after the other.
    static func joined(_ parts: [HTML], separator: HTML = "") -> HTML {
        HTML(rendered: parts.map(\.text).joined(separator: separator.text))
    }

    struct Interpolation: StringInterpolationProtocol {
        fileprivate var text = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        /// User or other text: escaped, safe in text and in quoted attribute values.
        mutating func appendInterpolation(_ value: String) {
            text += HTML.escape(value)
        }

        /// A number, as its digits.
        mutating func appendInterpolation(_ value: some BinaryInteger) {
            text += String(value)
        }

        /// A fragment built the same way.
        mutating func appendInterpolation(_ fragment: HTML) {
            text += fragment.text
        }

        /// Several fragments in order.
        mutating func appendInterpolation(_ fragments: [HTML]) {
            for fragment in fragments { text += fragment.text }
        }

        /// A link target built by `WebPath` (escaped too: a query may hold `&`).
        mutating func appendInterpolation(_ path: WebPath) {
            text += HTML.escape(path.value)
        }
    }

    /// The one escaping function: makes `text` inert in HTML text and in single- or
    /// double-quoted attribute values (OWASP's rule #1 and #2 set).
    static func escape(_ value: String) -> String {
        HTMLEscaping.escape(value)
    }
}

/// A same-origin URL of the web app (`/notes/ID`, `/search?q=...`): the only kind of URL a page
/// puts in `href`, `src` or `action`. User text enters one only percent-encoded, as a query value
/// or a path segment, so it can never become a `javascript:` URL or point elsewhere.
struct WebPath: Sendable, Equatable {
    let value: String

    /// A fixed path written in code; must start with `/` and not `//`.
    init(_ fixed: StaticString) {
        let text = "\(fixed)"
        precondition(text.hasPrefix("/") && !text.hasPrefix("//"), "web paths are same-origin absolute paths")
        value = text
    }

    private init(raw: String) {
        value = raw
    }

    /// `self` with `/segment` appended, the segment percent-encoded.
    func appending(_ segment: String) -> WebPath {
        WebPath(raw: (value.hasSuffix("/") ? value : value + "/") + Self.encode(segment))
    }

    /// `self` with a query string, every name and value percent-encoded.
    func query(_ items: [(String, String)]) -> WebPath {
        guard !items.isEmpty else { return self }
        let query = items.map { Self.encode($0.0) + "=" + Self.encode($0.1) }.joined(separator: "&")
        return WebPath(raw: value + (value.contains("?") ? "&" : "?") + query)
    }

    /// `self` with a fragment (`#id`), percent-encoded.
    func fragment(_ id: String) -> WebPath {
        WebPath(raw: value + "#" + Self.encode(id))
    }

    /// A path this server handed out earlier and the browser sent back (the `next` of sign-in),
    /// accepted only when it is a plain same-origin path: starts with one `/`, no backslash,
    /// no control characters or spaces.
    init?(returnedPath text: String) {
        guard text.hasPrefix("/"), !text.hasPrefix("//"), text.utf8.count <= 2048,
              !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0 == "\\" || $0.value == 0x7F }) else { return nil }
        value = text
    }

    /// RFC 3986 unreserved characters stay; everything else becomes `%XX` of its UTF-8 bytes.
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }
}
