import Foundation

/// A note's place in a notes folder: relative, `/`-separated, NFC-normalised, ending in `.md` or
/// `.markdown` in any letter case (`EntryKind.noteExtension(of:)`).
///
/// Server and client validate every path through this one type (docs/architecture.md, Sync invariants 8), so a path the
/// server accepts is one every client can write safely inside its folder, and a hostile path
/// from the network is refused before anything touches the disk.
public struct NotePath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The NFC-normalised path, as stored and sent on the wire.
    public let value: String

    /// The longest path accepted, in UTF-8 bytes.
    public static let maxBytes = 1024
    /// The longest single segment, in UTF-8 bytes (common filesystems stop at 255).
    public static let maxSegmentBytes = 255
    /// The extension of the notes the software names itself (a new note from the web app
    /// without one, a conflict copy of an attachment); any of `EntryKind.noteExtensions` makes a note.
    public static let fileExtension = ".md"
    /// The folder inside a notes folder where the client keeps its own state.
    public static let stateFolderName = ".notes"

    /// Validates and NFC-normalises `raw`.
    /// - Throws: `NotePathError` naming the rule the path breaks.
    public init(_ raw: String) throws(NotePathError) {
        // ASCII is already NFC; Foundation's normalisation costs a CFString round trip, which
        // was a fifth of a no-change sync of 10,000 notes.
        let normalized = Self.isASCII(raw) ? raw : raw.precomposedStringWithCanonicalMapping
        try Self.validate(normalized, requireMarkdown: true)
        value = normalized
    }

    /// Validates and NFC-normalises the path of any entry, note or attachment: every rule of
    /// `init(_:)` except the note extension (see `EntryKind(path:)` for which kind it names).
    /// - Throws: `NotePathError` naming the rule the path breaks.
    public init(entry raw: String) throws(NotePathError) {
        let normalized = Self.isASCII(raw) ? raw : raw.precomposedStringWithCanonicalMapping
        try Self.validate(normalized, requireMarkdown: false)
        value = normalized
    }

    /// The key under which two paths clash: NFC plus Unicode case-folding, so `A.md` and `a.md`
    /// cannot both exist for one user (they would overwrite each other on macOS and Windows).
    public var collisionKey: String { Self.collisionKey(of: value) }

    /// `raw` in NFC, cheaply: ASCII (the common case) is NFC already. For names that need not
    /// be valid note paths (a file name found on disk, a conflict copy being chosen).
    public static func nfc(_ raw: String) -> String {
        isASCII(raw) ? raw : raw.precomposedStringWithCanonicalMapping
    }

    /// The collision key of any name, valid note path or not: NFC plus Unicode case-folding.
    public static func collisionKey(of raw: String) -> String {
        // Unicode case-folding of ASCII is ASCII lower-casing, and the result is NFC already.
        if isASCII(raw) { return asciiLowercased(raw) }
        return raw.folding(options: [.caseInsensitive], locale: nil).precomposedStringWithCanonicalMapping
    }

    /// Whether every byte of `text` is ASCII: the bytes ORed together (the compiler vectorises
    /// the loop) where the UTF-8 is contiguous, as native strings are. The generic `allSatisfy`
    /// took about 30 instructions a byte, a tenth of a 10,000-note no-op sync's instructions.
    static func isASCII(_ text: String) -> Bool {
        let contiguous = text.utf8.withContiguousStorageIfAvailable(UTF8Validation.isASCII)
        return contiguous ?? text.utf8.allSatisfy { $0 < 0x80 }
    }

    private static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The `/`-separated segments.
    public var segments: [Substring] { value.split(separator: "/", omittingEmptySubsequences: false) }

    /// The last segment, such as `todo.md`.
    ///
    /// An ASCII path is cut at its last `/` byte rather than split into segments: export asks
    /// every note for it several times. Other paths keep the Character rules (a `/` followed by
    /// a combining mark is no separator there), as `FastPathStringTests` checks.
    public var fileName: String {
        guard Self.isASCII(value) else { return segments.last.map(String.init) ?? value }
        guard let slash = value.utf8.lastIndex(of: UInt8(ascii: "/")) else { return value }
        return String(value[value.utf8.index(after: slash)...])
    }

    /// The parent folder path, empty at the top level.
    public var folder: String {
        let slash = Self.isASCII(value) ? value.utf8.lastIndex(of: UInt8(ascii: "/")) : value.lastIndex(of: "/")
        guard let slash else { return "" }
        return String(value[..<slash])
    }

    public var description: String { value }

    public static func < (lhs: NotePath, rhs: NotePath) -> Bool { lhs.value < rhs.value }

    private static func validate(_ path: String, requireMarkdown: Bool) throws(NotePathError) {
        if path.isEmpty { throw .empty }
        if path.utf8.count > maxBytes { throw .tooLong(maxBytes: maxBytes) }
        if path.hasPrefix("/") { throw .absolute }
        if isASCII(path) {
            try validateASCII(path, requireMarkdown: requireMarkdown)
            return
        }
        for scalar in path.unicodeScalars {
            if scalar == "\\" { throw .forbiddenCharacter("backslash") }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                throw .forbiddenCharacter(scalar.value == 0 ? "NUL" : "control character")
            }
        }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty { throw .emptySegment }
            if segment == "." || segment == ".." { throw .dotSegment }
            if segment.hasPrefix(".") { throw .hiddenSegment(String(segment)) }
            if segment.utf8.count > maxSegmentBytes { throw .segmentTooLong(maxBytes: maxSegmentBytes) }
        }
        // A name that is only an extension (`.md`) was refused above as a hidden segment.
        if requireMarkdown, EntryKind.noteExtension(of: path) == nil { throw .notMarkdown }
    }

    /// The same rules, in the same order, over the bytes of an ASCII path (every byte is a
    /// character there): a sync scan validates every file's path, and this is most of them.
    private static func validateASCII(_ path: String, requireMarkdown: Bool) throws(NotePathError) {
        for byte in path.utf8 {
            if byte == UInt8(ascii: "\\") { throw .forbiddenCharacter("backslash") }
            if byte < 0x20 || byte == 0x7F { throw .forbiddenCharacter(byte == 0 ? "NUL" : "control character") }
        }
        let dot = UInt8(ascii: ".")
        for segment in path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if segment.isEmpty { throw .emptySegment }
            if segment.allSatisfy({ $0 == dot }) && segment.count <= 2 { throw .dotSegment }
            if segment.first == dot { throw .hiddenSegment(String(decoding: segment, as: UTF8.self)) }
            if segment.count > maxSegmentBytes { throw .segmentTooLong(maxBytes: maxSegmentBytes) }
        }
        if requireMarkdown, EntryKind.noteExtension(of: path) == nil { throw .notMarkdown }
    }
}

/// Why a string is not an acceptable note path.
public enum NotePathError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooLong(maxBytes: Int)
    case absolute
    case forbiddenCharacter(String)
    case emptySegment
    case dotSegment
    case hiddenSegment(String)
    case segmentTooLong(maxBytes: Int)
    case notMarkdown
    /// New paths only (see `NotePath.newNoteProblem`): an embedding, override or isolate
    /// control, which reorders how the text around it is shown, such as U+202E RIGHT-TO-LEFT
    /// OVERRIDE (`evil‮dm.exe` shows as `evilexe.md`), named as `U+XXXX NAME`.
    case bidiControl(String)

    public var description: String {
        switch self {
        case .empty: "the path is empty"
        case .tooLong(let max): "the path is longer than \(max) bytes"
        case .absolute: "the path must be relative, not start with /"
        case .forbiddenCharacter(let what): "the path contains a \(what)"
        case .emptySegment: "the path has an empty segment (// or a trailing /)"
        case .dotSegment: "the path has a . or .. segment"
        case .hiddenSegment: "the path has a segment starting with a dot (hidden files and .notes/ are never synced)"
        case .segmentTooLong(let max): "a path segment is longer than \(max) bytes"
        case .notMarkdown: "the path must name a Markdown file ending in .md or .markdown"
        case .bidiControl(let what): "the path contains \(what), a text-direction control that can disguise a name and that no script needs"
        }
    }
}
