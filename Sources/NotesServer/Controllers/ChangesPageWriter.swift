import Foundation
import NotesCore

/// Writes a changes page's JSON note by note into one buffer, within a byte bound.
///
/// Encoding the whole `ChangesPage` at once held the notes, the encoder's copy and the body
/// together: 30 notes of 10 MB made a 315 MB answer and about 1 GB resident. Here each note is
/// written as it is read and then let go, and the page stops before the note that would take it
/// past `maxBytes` (`has_more` tells the client to ask again). A note larger than the bound comes
/// alone on its page, so every note can be fetched.
///
/// The JSON is the same as `WireJSON` writes for a `ChangesPage` (sorted keys, so `content`
/// comes first in a note and `changes` first in the page): a note's metadata and the page's
/// envelope still go through the encoder; only the content string is escaped here, straight
/// into the answer.
struct ChangesPageWriter {
    /// The bound on the whole answer, in bytes.
    let maxBytes: Int
    private(set) var count = 0
    private var bytes: [UInt8]
    private let encoder = WireJSON.encoder()

    private static let opening = Array(#"{"changes":["#.utf8)
    /// Room kept for the envelope after the notes (`],"cursor":"full-…","has_more":false}`).
    private static let envelopeAllowance = 256

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
        bytes = Self.opening
        bytes.reserveCapacity(min(maxBytes, 256 * 1024))
    }

    /// Adds `note` if it fits within the bound (the first one always does); false when the page is full.
    mutating func append(_ note: NoteResource) throws -> Bool {
        var metadata = note
        metadata.content = nil
        let encoded = try encoder.encode(metadata)
        let contentBytes = note.content.map { Self.escapedCount($0) + #""content":"","#.utf8.count } ?? 0
        let size = (count > 0 ? 1 : 0) + encoded.count + contentBytes
        guard count == 0 || bytes.count + size + Self.envelopeAllowance <= maxBytes else { return false }
        bytes.reserveCapacity(bytes.count + size + Self.envelopeAllowance)
        if count > 0 { bytes.append(UInt8(ascii: ",")) }
        if let content = note.content {
            bytes.append(contentsOf: #"{"content":""#.utf8)
            Self.appendEscaped(content, to: &bytes)
            bytes.append(contentsOf: #"","#.utf8)
            bytes.append(contentsOf: encoded.dropFirst()) // the metadata object without its `{`
        } else {
            bytes.append(contentsOf: encoded)
        }
        count += 1
        return true
    }

    /// The finished answer body: the notes inside the page's envelope.
    consuming func finish(cursor: String, hasMore: Bool) throws -> [UInt8] {
        let envelope = try encoder.encode(ChangesPage(changes: [], cursor: cursor, hasMore: hasMore))
        let emptyOpening = Self.opening + [UInt8(ascii: "]")]
        guard envelope.starts(with: emptyOpening) else {
            throw ChangesPageWriterError(message: "the changes page no longer encodes with `changes` first")
        }
        bytes.append(contentsOf: envelope.dropFirst(Self.opening.count))
        return bytes
    }

    /// The length of `text` as a JSON string body, escapes included.
    static func escapedCount(_ text: String) -> Int {
        var count = 0
        for byte in text.utf8 {
            count += byte == 0x22 || byte == 0x5C || byte == 0x0A || byte == 0x0D || byte == 0x09 ? 2 : byte < 0x20 ? 6 : 1
        }
        return count
    }

    /// Appends `text` escaped for a JSON string (RFC 8259 §7): quote, backslash and control
    /// characters; everything else, non-ASCII included, goes through as its UTF-8 bytes.
    static func appendEscaped(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { source in
            var run = 0
            for index in source.indices {
                let byte = source[index]
                guard byte == 0x22 || byte == 0x5C || byte < 0x20 else { continue }
                output.append(contentsOf: source[run..<index])
                switch byte {
                case 0x22: output.append(contentsOf: [0x5C, 0x22])
                case 0x5C: output.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    output.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
                run = index + 1
            }
            output.append(contentsOf: source[run...])
        }
    }
}

/// The page envelope changed shape in a way the writer cannot splice into (a programming error
/// caught by the feed's tests; answered as a bare 500, never a wrong page).
struct ChangesPageWriterError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
