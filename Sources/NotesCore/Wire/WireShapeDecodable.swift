/// A wire type whose `Decodable` conformance is made from its `WireShape`: for types a
/// synthesized conformance cannot read, such as those with a `defaulted` member a reader may
/// miss (`kind`, absent from servers before attachments). Its shape needs a `draft`, the value a
/// reading starts from.
public protocol WireShapeDecodable: WireDescribed, Decodable {}

extension WireShapeDecodable {
    public init(from decoder: any Decoder) throws {
        self = try Self.wireShape.decode(from: decoder)
    }
}
