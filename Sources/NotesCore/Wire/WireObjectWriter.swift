/// The writing half of a `WireShape`: its members sorted by key, each written in line
/// (`WirePlainMember`) or through its field's closure, from a pointer to the object.
///
/// Nothing here depends on the object's type, so it is compiled once, for every shape, and a
/// caller in another module (the server writing a changes page entry by entry) runs it as it is
/// rather than as unspecialized generic code.
@usableFromInline
struct WireObjectWriter: Sendable {
    private struct Member: Sendable {
        let key: StaticString
        let plain: WirePlainMember?
        /// The index of the member's closure in `closures`, when it is not plain.
        let closure: Int
    }

    private let members: [Member]
    private let closures: [@Sendable (UnsafeRawPointer, inout WireJSONWriter) -> Void]

    /// The writer of `fields`, already sorted by key.
    init<Object>(sorted fields: [WireField<Object>]) {
        members = fields.indices.map { Member(key: fields[$0].key, plain: fields[$0].plain, closure: $0) }
        closures = fields.map(\.write)
    }

    /// Writes the object at `object` as a JSON object: its members in sorted key order, absent
    /// optionals left out.
    @usableFromInline
    func write(_ object: UnsafeRawPointer, to writer: inout WireJSONWriter) {
        writer.object { json in
            for member in members {
                if let plain = member.plain {
                    plain.write(object, key: member.key, to: &json)
                } else {
                    closures[member.closure](object, &json)
                }
            }
        }
    }
}
