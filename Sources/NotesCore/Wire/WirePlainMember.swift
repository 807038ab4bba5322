/// A member a `WireShape` writes and reads in line, at its offset in the object, rather than
/// through its field's closures: a string, an integer, a flag or an id, present or (for the
/// optional kinds) absent.
///
/// Most members of the hot wire types are of these kinds (a changes page's entry has ten of
/// them in eleven). Calling a closure per member, through a thunk and with its context
/// retained, is what made writing an entry by its shape dearer than writing it by hand.
struct WirePlainMember: Sendable {
    enum Kind: Sendable {
        case string, optionalString, int64, optionalInt64, int, bool, noteID
    }

    let offset: Int
    let kind: Kind

    /// The in-line kind of a member always written, or nil for a type written through its closure.
    init?<Value>(_ type: Value.Type, offset: Int) {
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(String.self): kind = .string
        case ObjectIdentifier(Int64.self): kind = .int64
        case ObjectIdentifier(Int.self): kind = .int
        case ObjectIdentifier(Bool.self): kind = .bool
        case ObjectIdentifier(NoteID.self): kind = .noteID
        default: return nil
        }
        self.offset = offset
    }

    /// The in-line kind of an optional member (`Value?` at `offset`), or nil.
    init?<Value>(optional type: Value.Type, offset: Int) {
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(String.self): kind = .optionalString
        case ObjectIdentifier(Int64.self): kind = .optionalInt64
        default: return nil
        }
        self.offset = offset
    }

    /// Writes the member of the object at `object` under `key`, or nothing for an absent optional.
    func write(_ object: UnsafeRawPointer, key: StaticString, to json: inout WireJSONWriter) {
        let member = object + offset
        switch kind {
        case .string: Self.write(member, as: String.self, key: key, to: &json)
        case .optionalString: Self.write(member, as: String?.self, key: key, to: &json)
        case .int64: Self.write(member, as: Int64.self, key: key, to: &json)
        case .optionalInt64: Self.write(member, as: Int64?.self, key: key, to: &json)
        case .int: Self.write(member, as: Int.self, key: key, to: &json)
        case .bool: Self.write(member, as: Bool.self, key: key, to: &json)
        case .noteID: Self.write(member, as: NoteID.self, key: key, to: &json)
        }
    }

    /// Reads the member's value (its key already read) into the object at `object`: `null` reads
    /// as nil for the optional kinds.
    func read(into object: UnsafeMutableRawPointer, from reader: inout WireJSONReader) throws {
        let member = object + offset
        switch kind {
        case .string: try Self.read(member, as: String.self, from: &reader)
        case .optionalString: member.assumingMemoryBound(to: String?.self).pointee = try reader.optional { try String.readValue(from: &$0) }
        case .int64: try Self.read(member, as: Int64.self, from: &reader)
        case .optionalInt64: member.assumingMemoryBound(to: Int64?.self).pointee = try reader.optional { try Int64.readValue(from: &$0) }
        case .int: try Self.read(member, as: Int.self, from: &reader)
        case .bool: try Self.read(member, as: Bool.self, from: &reader)
        case .noteID: try Self.read(member, as: NoteID.self, from: &reader)
        }
    }

    private static func write<Value: WireJSONValue>(_ member: UnsafeRawPointer, as type: Value.Type, key: StaticString,
                                                    to json: inout WireJSONWriter) {
        json.key(key)
        member.assumingMemoryBound(to: Value.self).pointee.writeValue(to: &json)
    }

    private static func write<Value: WireJSONValue>(_ member: UnsafeRawPointer, as type: Value?.Type, key: StaticString,
                                                    to json: inout WireJSONWriter) {
        guard let value = member.assumingMemoryBound(to: Value?.self).pointee else { return }
        json.key(key)
        value.writeValue(to: &json)
    }

    private static func read<Value: WireJSONValue>(_ member: UnsafeMutableRawPointer, as type: Value.Type,
                                                   from reader: inout WireJSONReader) throws {
        member.assumingMemoryBound(to: Value.self).pointee = try Value.readValue(from: &reader)
    }
}
