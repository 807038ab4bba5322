import Foundation

/// A note's place in a notes folder: relative, `/`-separated, NFC-normalised, ending in `.md`.
///
/// Server and client validate every path through this one type (DESIGN 4.8), so a path the
/// server accepts is one every client can write safely inside its folder, and a hostile path
/// from the network is refused before anything touches the disk.
public struct NotePath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The NFC-normalised path, as stored and sent on the wire.
    public let value: String

    /// The longest path accepted, in UTF-8 bytes.
    public static let maxBytes = 1024
    /// The longest single segment, in UTF-8 bytes (common filesystems stop at 255).
    public static let maxSegmentBytes = 255
    /// The required extension.
    public static let fileExtension = ".md"
    /// The folder inside a notes folder where the client keeps its own state.
    public static let stateFolderName = ".notes"

    /// Validates and NFC-normalises `raw`.
    /// - Throws: `NotePathError` naming the rule the path breaks.
    public init(_ raw: String) throws(NotePathError) {
        let normalized = raw.precomposedStringWithCanonicalMapping
        try Self.validate(normalized)
        value = normalized
    }

    /// The key under which two paths clash: NFC plus Unicode case-folding, so `A.md` and `a.md`
    /// cannot both exist for one user (they would overwrite each other on macOS and Windows).
    public var collisionKey: String {
        value.folding(options: [.caseInsensitive], locale: nil).precomposedStringWithCanonicalMapping
    }

    /// The `/`-separated segments.
    public var segments: [Substring] { value.split(separator: "/", omittingEmptySubsequences: false) }

    /// The last segment, such as `todo.md`.
    public var fileName: String { segments.last.map(String.init) ?? value }

    /// The parent folder path, empty at the top level.
    public var folder: String {
        guard let slash = value.lastIndex(of: "/") else { return "" }
        return String(value[..<slash])
    }

    public var description: String { value }

    public static func < (lhs: NotePath, rhs: NotePath) -> Bool { lhs.value < rhs.value }

    private static func validate(_ path: String) throws(NotePathError) {
        if path.isEmpty { throw .empty }
        if path.utf8.count > maxBytes { throw .tooLong(maxBytes: maxBytes) }
        if path.hasPrefix("/") { throw .absolute }
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
        if !path.hasSuffix(fileExtension) || path.hasSuffix("/" + fileExtension) || path == fileExtension {
            throw .notMarkdown
        }
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
        case .notMarkdown: "the path must name a Markdown file ending in .md"
        }
    }
}
