/// A JSON value written as a Swift literal, keeping the order its object keys were written in,
/// so the OpenAPI document reads in Swift as it is served and is serialised once at start-up.
/// The wire types' schemas are made of it too (`WireShape`), which is why it lives here.
///
/// Literals build it directly: `["type": "integer", "minimum": 1]`, `["a", "b"]`, `true`, `1`.
public indirect enum OpenAPIValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case bool(Bool)
    case array([OpenAPIValue])
    /// Keys in the order written.
    case object(Fields)

    /// An object's fields, in order.
    public typealias Fields = [(key: String, value: OpenAPIValue)]

    public static func == (lhs: OpenAPIValue, rhs: OpenAPIValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    /// The value of `key` in an object; nil for a missing key or another kind of value.
    public subscript(key: String) -> OpenAPIValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.last { $0.key == key }?.value
    }

    /// The fields of several objects in one, in order; a later key replaces an earlier one in
    /// place (non-objects contribute nothing).
    public static func merged(_ parts: OpenAPIValue...) -> OpenAPIValue {
        var fields: Fields = []
        for case .object(let more) in parts {
            for field in more {
                if let index = fields.firstIndex(where: { $0.key == field.key }) {
                    fields[index].value = field.value
                } else {
                    fields.append(field)
                }
            }
        }
        return .object(fields)
    }

    /// The words a wire field of date and time adds to its string's schema (`WireTime`).
    public static let dateTime: OpenAPIValue = ["format": "date-time"]

    /// The words a wire field holding a content hash (SHA-256 hex) adds to its string's schema.
    public static let contentHash: OpenAPIValue = ["pattern": "^[0-9a-f]{64}$"]

    /// The value as JSON text, two spaces per level of nesting.
    public var jsonText: String {
        var text = ""
        write(into: &text, indent: "")
        return text
    }

    private func write(into text: inout String, indent: String) {
        switch self {
        case .string(let string): Self.writeString(string, into: &text)
        case .integer(let number): text += String(number)
        case .bool(let flag): text += flag ? "true" : "false"
        case .array(let items):
            guard !items.isEmpty else { text += "[]"; return }
            text += "[\n"
            for (index, item) in items.enumerated() {
                text += indent + "  "
                item.write(into: &text, indent: indent + "  ")
                text += index == items.count - 1 ? "\n" : ",\n"
            }
            text += indent + "]"
        case .object(let fields):
            guard !fields.isEmpty else { text += "{}"; return }
            text += "{\n"
            for (index, field) in fields.enumerated() {
                text += indent + "  "
                Self.writeString(field.key, into: &text)
                text += ": "
                field.value.write(into: &text, indent: indent + "  ")
                text += index == fields.count - 1 ? "\n" : ",\n"
            }
            text += indent + "}"
        }
    }

    /// A JSON string literal, escaped as every other JSON the server writes (`WireJSONWriter`).
    private static func writeString(_ string: String, into text: inout String) {
        var writer = WireJSONWriter(reservingCapacity: string.utf8.count + 2)
        writer.value(string)
        text += String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension OpenAPIValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: OpenAPIValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, OpenAPIValue)...) {
        self = .object(elements.map { (key: $0.0, value: $0.1) })
    }
}
