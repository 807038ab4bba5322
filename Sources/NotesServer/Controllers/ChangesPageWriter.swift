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
/// comes first in a note and `changes` first in the page): the encoder writes each part (the
/// content string, the note's other fields, the page's envelope) and they are joined here, so a
/// note is held at most twice (its text and its encoded form) and only while it is written.
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
        // The content alone, as a JSON string literal: exact size, escapes and all.
        let content = try note.content.map { try encoder.encode($0) }
        let size = (count > 0 ? 1 : 0) + encoded.count + (content.map { $0.count + Self.contentKey.count + 1 } ?? 0)
        guard count == 0 || bytes.count + size + Self.envelopeAllowance <= maxBytes else { return false }
        bytes.reserveCapacity(bytes.count + size + Self.envelopeAllowance)
        if count > 0 { bytes.append(UInt8(ascii: ",")) }
        if let content {
            bytes.append(contentsOf: Self.contentKey)
            bytes.append(contentsOf: content)
            bytes.append(UInt8(ascii: ","))
            bytes.append(contentsOf: encoded.dropFirst()) // the metadata object without its `{`
        } else {
            bytes.append(contentsOf: encoded)
        }
        count += 1
        return true
    }

    private static let contentKey = Array(#"{"content":"#.utf8)

    /// The finished answer body: the notes inside the page's envelope.
    consuming func finish(cursor: String, hasMore: Bool, userId: Int64) throws -> [UInt8] {
        let envelope = try encoder.encode(ChangesPage(changes: [], cursor: cursor, hasMore: hasMore, userId: userId))
        let emptyOpening = Self.opening + [UInt8(ascii: "]")]
        guard envelope.starts(with: emptyOpening) else {
            throw ChangesPageWriterError(message: "the changes page no longer encodes with `changes` first")
        }
        bytes.append(contentsOf: envelope.dropFirst(Self.opening.count))
        return bytes
    }
}

/// The page envelope changed shape in a way the writer cannot splice into (a programming error
/// caught by the feed's tests; answered as a bare 500, never a wrong page).
struct ChangesPageWriterError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
