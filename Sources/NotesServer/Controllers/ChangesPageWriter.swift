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
/// each note is written by `WireJSONWriter` straight into the page, and taken back when it takes
/// the page past the bound, so a note is held at most twice (its text and its encoded form) and
/// only while it is written.
struct ChangesPageWriter {
    /// The bound on the whole answer, in bytes.
    let maxBytes: Int
    private(set) var count = 0
    private var json: WireJSONWriter

    /// Room kept for the envelope after the notes (`],"cursor":"full-…","has_more":false,"user_id":…}`).
    private static let envelopeAllowance = 256

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
        json = WireJSONWriter(reservingCapacity: min(maxBytes, 256 * 1024))
        json.verbatim(#"{"changes":["#, separatesNext: false)
    }

    /// Adds `note` if it fits within the bound (the first one always does); false when the page is full.
    /// Throws nothing today; kept throwing so a streaming writer can report a failed write.
    mutating func append(_ note: NoteResource) throws -> Bool {
        let mark = json.mark
        note.write(to: &json)
        guard count == 0 || json.bytes.count + Self.envelopeAllowance <= maxBytes else {
            json.rewind(to: mark)
            return false
        }
        count += 1
        return true
    }

    /// The finished answer body: the notes inside the page's envelope.
    consuming func finish(cursor: String, hasMore: Bool, userId: Int64) throws -> [UInt8] {
        json.verbatim("]", separatesNext: true)
        json.key("cursor"); json.value(cursor)
        json.key("has_more"); json.value(hasMore)
        json.key("user_id"); json.value(userId)
        json.verbatim("}", separatesNext: true)
        return json.bytes
    }
}
