/// One member of a wire type's JSON object: its snake_case key, how the hand-written writer
/// writes it and the hand reader reads it, whether it must be present, and its OpenAPI schema.
/// A `WireShape` lists them; the writer, the reader and the document all walk that list.
public struct WireField<Object>: Sendable {
    /// The member's name on the wire (snake_case, plain ASCII).
    public let key: StaticString
    /// Whether every answer carries it (the document's `required`) and a reader needs it.
    public let isRequired: Bool
    /// The member's OpenAPI schema: its value's, with the field's own words merged in.
    public let schema: OpenAPIValue
    /// How the shape's writer writes the member in line, when its value is of a plain kind;
    /// nil when `write` writes it.
    let plain: WirePlainMember?
    /// Writes the key and the value of the object at the pointer, or nothing for an absent
    /// optional.
    let write: @Sendable (UnsafeRawPointer, inout WireJSONWriter) -> Void
    /// Reads the value (the key already read) into the object being read, at the pointer.
    let read: @Sendable (UnsafeMutableRawPointer, inout WireJSONReader) throws -> Void
    /// Decodes the member from a `Decoder`'s container into the object at the pointer, as
    /// `read` reads it (`WireShapeCodable`).
    let decode: @Sendable (UnsafeMutableRawPointer, KeyedDecodingContainer<WireCodingKey>) throws -> Void
    /// Encodes the member of the object at the pointer, as `write` writes it.
    let encode: @Sendable (UnsafeRawPointer, inout KeyedEncodingContainer<WireCodingKey>) throws -> Void

    /// The key as a string, for the document and for tests.
    public var name: String { key.description }

    /// A member every value has: always written, and a reader refuses an object without it.
    /// `schema` adds to (or overrides) the schema of `Value`: a description, a format, limits.
    public static func required<Value: WireJSONValue>(_ key: StaticString, _ path: WritableKeyPath<Object, Value>,
                                                      _ schema: OpenAPIValue = [:]) -> WireField {
        let member = WireStoredMember(path)
        let codingKey = WireCodingKey(snakeCase: key)
        return WireField(key: key, isRequired: true, schema: fieldSchema(Value.openAPISchema, schema),
                         plain: WirePlainMember(Value.self, offset: member.offset),
                         write: { object, json in
                             json.key(key)
                             member.pointer(in: object).pointee.writeValue(to: &json)
                         },
                         read: { object, reader in member.pointer(in: object).pointee = try Value.readValue(from: &reader) },
                         decode: { object, container in member.pointer(in: object).pointee = try container.decode(Value.self, forKey: codingKey) },
                         encode: { object, container in try container.encode(member.pointer(in: object).pointee, forKey: codingKey) })
    }

    /// A member that may be absent: written only when present (as the synthesized `Encodable`
    /// leaves out a nil optional); `null` or absence reads as nil.
    public static func optional<Value: WireJSONValue>(_ key: StaticString, _ path: WritableKeyPath<Object, Value?>,
                                                      _ schema: OpenAPIValue = [:]) -> WireField {
        let member = WireStoredMember(path)
        let codingKey = WireCodingKey(snakeCase: key)
        return WireField(key: key, isRequired: false, schema: fieldSchema(Value.openAPISchema, schema),
                         plain: WirePlainMember(optional: Value.self, offset: member.offset),
                         write: { object, json in
                             guard let value = member.pointer(in: object).pointee else { return }
                             json.key(key)
                             value.writeValue(to: &json)
                         },
                         read: { object, reader in member.pointer(in: object).pointee = try reader.optional { try Value.readValue(from: &$0) } },
                         decode: { object, container in
                             member.pointer(in: object).pointee = try container.decodeIfPresent(Value.self, forKey: codingKey)
                         },
                         encode: { object, container in try container.encodeIfPresent(member.pointer(in: object).pointee, forKey: codingKey) })
    }

    /// A member a reader may miss, or find `null`: the object keeps the value it was read into
    /// (`WireShape`'s `draft`), as a decoder's `decodeIfPresent(...) ?? default` does. Written
    /// always, or, with `omittedAt`, left out when it holds that value (for readers older than
    /// the member).
    public static func defaulted<Value: WireJSONValue & Equatable>(_ key: StaticString, _ path: WritableKeyPath<Object, Value>,
                                                                   omittedAt omitted: Value? = nil,
                                                                   _ schema: OpenAPIValue = [:]) -> WireField {
        let member = WireStoredMember(path)
        let codingKey = WireCodingKey(snakeCase: key)
        return WireField(key: key, isRequired: false, schema: fieldSchema(Value.openAPISchema, schema),
                         plain: nil,
                         write: { object, json in
                             let value = member.pointer(in: object).pointee
                             if let omitted, value == omitted { return }
                             json.key(key)
                             value.writeValue(to: &json)
                         },
                         read: { object, reader in
                             if let value = try reader.optional({ try Value.readValue(from: &$0) }) { member.pointer(in: object).pointee = value }
                         },
                         decode: { object, container in
                             if let value = try container.decodeIfPresent(Value.self, forKey: codingKey) { member.pointer(in: object).pointee = value }
                         },
                         encode: { object, container in
                             let value = member.pointer(in: object).pointee
                             if let omitted, value == omitted { return }
                             try container.encode(value, forKey: codingKey)
                         })
    }

    /// `base` with a field's `words` merged in. A reference takes no words beside it in OpenAPI
    /// 3.0, so a described type's reference is wrapped in `allOf` when the field adds any.
    private static func fieldSchema(_ base: OpenAPIValue, _ words: OpenAPIValue) -> OpenAPIValue {
        guard base["$ref"] != nil, words != [:] else { return .merged(base, words) }
        return .merged(["allOf": [base]], words)
    }
}
