import Foundation

/// `.notes-export.json` in OUTDIR: every file a previous export wrote, with the SHA-256 of the
/// bytes it wrote. It is how a re-export knows what it may replace or remove: a file not listed
/// here is the user's and is never touched.
///
/// A `null` hash marks a file being written: the manifest is saved listing it before the write,
/// so an export killed half-way still owns every file it may have left behind.
struct ExportManifest: Codable, Equatable, Sendable {
    static let fileName = ".notes-export.json"
    static let currentFormat = 1

    var format: Int = currentFormat
    var generator: String = "notes export"
    /// Site path → SHA-256 hex of its bytes, or nil while being written.
    var files: [String: String?] = [:]

    /// Reads the manifest of `directory`, or an empty one when there is none.
    /// - Throws: `ExportError` when the file exists but is not a manifest this version understands,
    ///   rather than guessing what may be deleted.
    static func load(from directory: URL) throws(ExportError) -> ExportManifest {
        let url = directory.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else { return ExportManifest() }
        // Export deletes what the manifest lists, so a path that could reach outside OUTDIR
        // (a tampered or foreign manifest) makes the whole manifest unusable.
        guard let manifest = try? JSONDecoder().decode(ExportManifest.self, from: data),
              manifest.format == currentFormat, manifest.files.keys.allSatisfy(isSafeRelativePath) else {
            throw .unreadableManifest(path: url.path)
        }
        return manifest
    }

    /// Whether `path` stays inside the folder it is relative to: no leading `/`, no empty, `.`
    /// or `..` segment, no NUL or backslash.
    static func isSafeRelativePath(_ path: String) -> Bool {
        // One pass over the bytes (every exported file is checked): Foundation's
        // `String.contains(_:)` searches through `NSString`, and splitting made an array.
        guard !path.isEmpty, !path.hasPrefix("/") else { return false }
        var length = 0
        var dots = 0
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "\\"), 0: return false
            case UInt8(ascii: "/"):
                guard isSafeSegment(length: length, dots: dots) else { return false }
                length = 0
                dots = 0
            default:
                length += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return isSafeSegment(length: length, dots: dots)
    }

    /// Whether a path segment of `length` bytes, `dots` of them `.`, is neither empty, `.` nor `..`.
    private static func isSafeSegment(length: Int, dots: Int) -> Bool {
        length > 0 && !(length == dots && dots <= 2)
    }

    /// The manifest as sorted, indented JSON: stable bytes, readable in a diff (`prettyJSON()`).
    func encoded() -> Data {
        Data(prettyJSON())
    }

    /// Saves the manifest into `directory` atomically, unless it already holds these bytes.
    func save(to directory: URL) throws(ExportError) {
        let url = directory.appendingPathComponent(Self.fileName)
        let data = encoded()
        if FileManager.default.contents(atPath: url.path) == data { return }
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw .cannotWrite(path: url.path, cause: error)
        }
    }
}
