import Foundation

/// A note's stable identity: a UUID in canonical lowercase form, chosen by the client or the server.
///
/// Client-chosen ids make a retried create idempotent: the same id cannot be created twice.
public struct NoteID: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    public let value: String

    /// Parses any UUID spelling; `nil` when `raw` is not a UUID.
    public init?(_ raw: String) {
        guard raw.utf8.count == 36 else { return nil }
        // Ids on the wire and in the databases are canonical already: take them as they are
        // instead of a round trip through `UUID` (sscanf), which every feed entry paid.
        if Self.isCanonical(raw) {
            value = raw
            return
        }
        guard let uuid = UUID(uuidString: raw) else { return nil }
        value = uuid.uuidString.lowercased()
    }

    /// Whether `raw` is a UUID in the form `UUID.uuidString.lowercased()` gives: lowercase
    /// hex digits in groups of 8-4-4-4-12.
    private static func isCanonical(_ raw: String) -> Bool {
        // Over the contiguous UTF-8 (native strings are): the generic byte loop with range
        // checks was about 1,500 instructions an id, a tenth of a no-op sync's reading of its
        // index (10,000 ids).
        let contiguous = raw.utf8.withContiguousStorageIfAvailable(isCanonical(utf8:))
        if let contiguous { return contiguous }
        var offset = 0
        for byte in raw.utf8 {
            let isHyphenPlace = offset == 8 || offset == 13 || offset == 18 || offset == 23
            let ok = isHyphenPlace ? byte == UInt8(ascii: "-") : (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
            guard ok else { return false }
            offset += 1
        }
        return offset == 36
    }

    /// Whether `bytes` spell a UUID as an id keeps it (lowercase hex digits in groups of
    /// 8-4-4-4-12), so `NoteID(_:)` would take them as they are: for readers that hold ids as
    /// bytes (the client's index).
    public static func isCanonical(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        for offset in 0..<36 {
            let byte = bytes[offset]
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard byte &- UInt8(ascii: "0") < 10 || byte &- UInt8(ascii: "a") < 6 else { return false }
            }
        }
        return true
    }

    /// A fresh id: a version 7 UUID (RFC 9562), whose first 48 bits are the Unix time in
    /// milliseconds and the next 12 the fraction of that millisecond, the other 62 bits random.
    ///
    /// Ids made one after another sort in the order they were made, so a thousand notes created
    /// in one sync land at the end of the servers' indexes on `(user_id, id)` instead of at
    /// random places in them: a batch of new notes rewrites a few index pages, not one page a
    /// note (measured on a 10,000-note upload). The 62 random bits keep an id unguessable; the
    /// time it shows is the note's creation time, which the API reports anyway.
    public init() {
        self.init(version7At: .now)
    }

    /// The version 7 id for `instant`, with fresh random bits.
    ///
    /// Spelled straight into the string's own storage: the hex string, its array and five
    /// substrings joined were ~7,000 instructions an id, 3 % of the client's work in a
    /// 10,000-note upload (callgrind); the random bits come from `RandomWords`, a system call
    /// per 64 ids instead of one per id.
    init(version7At instant: Date) {
        let seconds = max(0, instant.timeIntervalSince1970)
        let milliseconds = UInt64(seconds * 1000)
        let fraction = UInt64(((seconds * 1000) - Double(milliseconds)) * 4096) & 0xFFF
        let tail = RandomWords.next()
        // 48 bits of milliseconds, the version (7) and 12 bits of fraction, then the variant
        // (binary 10) and 62 random bits.
        let high = milliseconds << 16 | 0x7000 | fraction
        let low = 0x8000_0000_0000_0000 | (tail & 0x3FFF_FFFF_FFFF_FFFF)
        value = String(unsafeUninitializedCapacity: 36) { out in
            var at = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    out[at] = UInt8(ascii: "-")
                    at += 1
                }
                let word = index < 8 ? high : low
                let byte = UInt8(truncatingIfNeeded: word >> (56 - 8 * UInt64(index % 8)))
                out[at] = Hex.digit(byte >> 4)
                out[at + 1] = Hex.digit(byte & 0x0F)
                at += 2
            }
            return at
        }
    }

    public var description: String { value }

    public static func < (lhs: NoteID, rhs: NoteID) -> Bool { lhs.value < rhs.value }

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        guard let id = NoteID(raw) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a UUID"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
