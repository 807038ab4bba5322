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
        var offset = 0
        for byte in raw.utf8 {
            let isHyphenPlace = offset == 8 || offset == 13 || offset == 18 || offset == 23
            let ok = isHyphenPlace ? byte == UInt8(ascii: "-") : (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
            guard ok else { return false }
            offset += 1
        }
        return offset == 36
    }

    /// A fresh random id.
    public init() {
        value = UUID().uuidString.lowercased()
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
