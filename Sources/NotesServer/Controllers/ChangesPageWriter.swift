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
/// The JSON is what `WireJSON` writes for a `ChangesPage` (sorted keys, so `changes` comes first):
/// each note is written by `WireJSONWriter` on its own, measured, and joined here, so a note is
/// held at most twice (its text and its encoded form) and only while it is written.
struct ChangesPageWriter {
    /// The bound on the whole answer, in bytes.
    let maxBytes: Int
    private(set) var count = 0
    private var bytes: [UInt8]

    private static let opening = Array(#"{"changes":["#.utf8)
    /// Room kept for the envelope after the notes (`],"cursor":"full-…","has_more":false,"user_id":…}`).
    private static let envelopeAllowance = 256

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
        bytes = Self.opening
        bytes.reserveCapacity(min(maxBytes, 256 * 1024))
    }

    /// Adds `note` if it fits within the bound (the first one always does); false when the page is full.
    /// Throws nothing today; kept throwing so a streaming writer can report a failed write.
    mutating func append(_ note: NoteResource) throws -> Bool {
        var writer = WireJSONWriter(reservingCapacity: (note.content?.utf8.count ?? 0) + 256)
        note.write(to: &writer)
        let size = (count > 0 ? 1 : 0) + writer.bytes.count
        guard count == 0 || bytes.count + size + Self.envelopeAllowance <= maxBytes else { return false }
        if count > 0 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(contentsOf: writer.bytes)
        count += 1
        return true
    }

    /// The finished answer body: the notes inside the page's envelope.
    consuming func finish(cursor: String, hasMore: Bool, userId: Int64) throws -> [UInt8] {
        var envelope = WireJSONWriter()
        envelope.object { json in
            json.key("cursor"); json.value(cursor)
            json.key("has_more"); json.value(hasMore)
            json.key("user_id"); json.value(userId)
        }
        bytes.append(contentsOf: [UInt8(ascii: "]"), UInt8(ascii: ",")])
        bytes.append(contentsOf: envelope.bytes.dropFirst())  // the members and `}`, after the notes
        return bytes
    }
}
