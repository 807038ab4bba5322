/// A value a wire field holds, as the hand-written JSON writer and reader spell it, with the
/// OpenAPI schema its JSON has: a string, a number, a flag, an id, an enumeration, an array of
/// these, or another described wire type.
public protocol WireJSONValue: Codable, Sendable {
    /// Writes the value (never `null`: an absent optional member is left out).
    func writeValue(to writer: inout WireJSONWriter)
    /// Reads the value; throws `WireJSONReader.Refusal` for anything but its own shape.
    static func readValue(from reader: inout WireJSONReader) throws -> Self
    /// The OpenAPI schema of the value's JSON, to which a field adds its own words.
    static var openAPISchema: OpenAPIValue { get }
}

extension String: WireJSONValue {
    public func writeValue(to writer: inout WireJSONWriter) { writer.value(self) }
    public static func readValue(from reader: inout WireJSONReader) throws -> String { try reader.string() }
    public static var openAPISchema: OpenAPIValue { ["type": "string"] }
}

extension Int: WireJSONValue {
    public func writeValue(to writer: inout WireJSONWriter) { writer.value(self) }
    public static func readValue(from reader: inout WireJSONReader) throws -> Int { try reader.int() }
    public static var openAPISchema: OpenAPIValue { ["type": "integer"] }
}

extension Int64: WireJSONValue {
    public func writeValue(to writer: inout WireJSONWriter) { writer.value(self) }
    public static func readValue(from reader: inout WireJSONReader) throws -> Int64 { try reader.int64() }
    public static var openAPISchema: OpenAPIValue { ["type": "integer", "format": "int64"] }
}

extension Bool: WireJSONValue {
    public func writeValue(to writer: inout WireJSONWriter) { writer.value(self) }
    public static func readValue(from reader: inout WireJSONReader) throws -> Bool { try reader.bool() }
    public static var openAPISchema: OpenAPIValue { ["type": "boolean"] }
}

extension NoteID: WireJSONValue {
    public func writeValue(to writer: inout WireJSONWriter) { writer.value(value) }
    public static func readValue(from reader: inout WireJSONReader) throws -> NoteID {
        guard let id = NoteID(try reader.string()) else { throw WireJSONReader.Refusal() }
        return id
    }
    public static var openAPISchema: OpenAPIValue { ["type": "string", "format": "uuid"] }
}

extension Array: WireJSONValue where Element: WireJSONValue {
    public func writeValue(to writer: inout WireJSONWriter) {
        writer.array(self) { json, element in element.writeValue(to: &json) }
    }
    public static func readValue(from reader: inout WireJSONReader) throws -> [Element] {
        try reader.array { try Element.readValue(from: &$0) }
    }
    public static var openAPISchema: OpenAPIValue { ["type": "array", "items": Element.openAPISchema] }
}

/// A closed set of strings on the wire (`kind`, `op`, `scope`, `status`): written as its raw
/// value, read only when it is one of the cases, and documented with their list.
public protocol WireJSONEnumeration: WireJSONValue, RawRepresentable<String>, CaseIterable {}

extension WireJSONEnumeration {
    public func writeValue(to writer: inout WireJSONWriter) { writer.value(rawValue) }
    public static func readValue(from reader: inout WireJSONReader) throws -> Self {
        guard let value = Self(rawValue: try reader.string()) else { throw WireJSONReader.Refusal() }
        return value
    }
    public static var openAPISchema: OpenAPIValue { enumerationSchema }

    /// A string schema listing every case.
    public static var enumerationSchema: OpenAPIValue {
        ["type": "string", "enum": .array(allCases.map { .string($0.rawValue) })]
    }
}

extension EntryKind: WireJSONEnumeration {}
