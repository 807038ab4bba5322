/// A wire type's JSON object, field by field: the one description its hand-written writer, its
/// hand reader and its OpenAPI schema are made from, so a field is added in one place.
///
/// The fields are listed in the order the document shows them; the writer and the reader walk
/// them sorted by key, the order `WireJSON.encoder()` writes (`WireShapeTests` holds the bytes to
/// the encoder's and the document's properties to the keys).
public struct WireShape<Object: Sendable>: Sendable {
    /// The schema's name under the document's `components/schemas`.
    public let name: String
    /// The schema's own description, if it has one.
    public let summary: String?
    /// The fields in the document's order.
    public let fields: [WireField<Object>]
    /// The fields' keys and readers, sorted by key: the order of the written members, and the
    /// order a reader expects them in (it looks for the one after the last it found first).
    /// Each alone, so walking them copies (and retains) nothing else of a field.
    private let keys: [StaticString]
    private let readers: [@Sendable (UnsafeMutableRawPointer, inout WireJSONReader) throws -> Void]
    /// The sorted fields read in line, at their offset (nil: through their closure in `readers`).
    private let plainMembers: [WirePlainMember?]
    /// Writes the members in that order.
    @usableFromInline let objectWriter: WireObjectWriter
    /// One bit per sorted field that is required.
    private let requiredMask: UInt64
    /// The value a reading starts from: what a member that never came leaves. Without one the
    /// hand reader refuses the type (`JSONDecoder` reads it).
    private let draft: Object?

    /// - Parameters:
    ///   - name: the schema's name in the document.
    ///   - summary: the schema's description.
    ///   - draft: the value a hand reading starts from; nil for types only written by hand.
    public init(_ name: String, summary: String? = nil, draft: Object? = nil, fields: [WireField<Object>]) {
        precondition(fields.count <= 64, "a wire shape has at most 64 fields")
        self.name = name
        self.summary = summary
        self.fields = fields
        self.draft = draft
        let sorted = fields.sorted { $0.key.description.utf8.lexicographicallyPrecedes($1.key.description.utf8) }
        keys = sorted.map(\.key)
        objectWriter = WireObjectWriter(sorted: sorted)
        readers = sorted.map(\.read)
        plainMembers = sorted.map(\.plain)
        requiredMask = sorted.indices.reduce(0) { mask, index in sorted[index].isRequired ? mask | 1 << UInt64(index) : mask }
    }

    /// Writes `object` as `WireJSON.encoder()` would: sorted keys, absent optionals left out.
    /// Inlinable, so a caller in another module reaches the object's memory without copying it
    /// through generic code.
    @inlinable
    public func write(_ object: Object, to writer: inout WireJSONWriter) {
        withUnsafePointer(to: object) { pointer in objectWriter.write(UnsafeRawPointer(pointer), to: &writer) }
    }

    /// Reads an object of this shape: members in any order, unknown ones skipped. Refuses a
    /// member sent twice (so the hand reader never picks another of the two than `JSONDecoder`
    /// would), a missing required one, and any shape without a draft.
    public func read(from reader: inout WireJSONReader) throws -> Object {
        guard var object = draft else { throw WireJSONReader.Refusal() }
        var seen: UInt64 = 0
        var next = 0
        try withUnsafeMutablePointer(to: &object) { pointer in
            try reader.asciiKeyedObject { reader, key in
                guard let index = index(of: key, from: next) else { return try reader.skipValue() }
                let bit: UInt64 = 1 << UInt64(index)
                guard seen & bit == 0 else { throw WireJSONReader.Refusal() }
                seen |= bit
                if let plain = plainMembers[index] {
                    try plain.read(into: pointer, from: &reader)
                } else {
                    try readers[index](pointer, &reader)
                }
                next = index + 1
            }
        }
        guard seen & requiredMask == requiredMask else { throw WireJSONReader.Refusal() }
        return object
    }

    /// Decodes an object of this shape from a `Decoder` (`WireShapeDecodable`), as `read` reads
    /// it: from the draft, each member under its camelCase key (`WireCodingKey`).
    public func decode(from decoder: any Decoder) throws -> Object {
        guard var object = draft else { preconditionFailure("a wire shape decoded from a Decoder needs a draft: \(name)") }
        let container = try decoder.container(keyedBy: WireCodingKey.self)
        try withUnsafeMutablePointer(to: &object) { pointer in
            for field in fields { try field.decode(pointer, container) }
        }
        return object
    }

    /// Encodes `object` to an `Encoder`, member by member in the shape's order, as `write`
    /// writes it (for a type whose `Encodable` leaves a member out at its default).
    public func encode(_ object: Object, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: WireCodingKey.self)
        try withUnsafePointer(to: object) { pointer in
            for field in fields { try field.encode(pointer, &container) }
        }
    }

    /// The sorted field named `key`, looked for from `start` on and then from the top: members
    /// written in sorted order are each found at the first look.
    private func index(of key: WireJSONKey, from start: Int) -> Int? {
        for index in start..<keys.count where keys[index] ~= key { return index }
        for index in 0..<min(start, keys.count) where keys[index] ~= key { return index }
        return nil
    }

    /// The schema under `components/schemas/<name>`: an object with each field's schema, and
    /// `required` listing the required ones (left out when none is).
    public var openAPISchema: OpenAPIValue {
        var schema: OpenAPIValue.Fields = [("type", "object")]
        let required = fields.filter(\.isRequired).map { OpenAPIValue.string($0.name) }
        if !required.isEmpty { schema.append(("required", .array(required))) }
        if let summary { schema.append(("description", .string(summary))) }
        schema.append(("properties", .object(fields.map { (key: $0.name, value: $0.schema) })))
        return .object(schema)
    }

    /// A reference to this schema, as a field of another wire type points at it.
    public var openAPIReference: OpenAPIValue { ["$ref": .string("#/components/schemas/\(name)")] }
}

/// A wire type with a `WireShape`: it is a field value of other wire types, written and read
/// through its shape, and its schema is a component of the document.
public protocol WireDescribed: WireJSONValue {
    static var wireShape: WireShape<Self> { get }
}

extension WireDescribed {
    @inlinable
    public func writeValue(to writer: inout WireJSONWriter) { Self.wireShape.write(self, to: &writer) }
    public static func readValue(from reader: inout WireJSONReader) throws -> Self { try wireShape.read(from: &reader) }
    public static var openAPISchema: OpenAPIValue { wireShape.openAPIReference }
}
