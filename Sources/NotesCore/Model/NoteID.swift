import Foundation

/// A note's stable identity: a UUID in canonical lowercase form, chosen by the client or the server.
///
/// Client-chosen ids make a retried create idempotent: the same id cannot be created twice.
public struct NoteID: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    public let value: String

    /// Parses any UUID spelling; `nil` when `raw` is not a UUID.
    public init?(_ raw: String) {
        guard raw.utf8.count == 36, let uuid = UUID(uuidString: raw) else { return nil }
        value = uuid.uuidString.lowercased()
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
