/// A wire field's coding key for `Decoder`s and `Encoder`s: its snake_case key as the
/// conversions of `WireJSON` meet it, camelCase (`media_type` is `mediaType`), the name of the
/// stored property it holds and the key a synthesized conformance would use.
public struct WireCodingKey: CodingKey, Sendable {
    public let stringValue: String
    public var intValue: Int? { nil }

    public init(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }

    /// The key of the field `key`, converted as `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase`
    /// converts a member's name (and `convertToSnakeCase` converts back).
    init(snakeCase key: StaticString) {
        let words = key.description.split(separator: "_")
        stringValue = words.prefix(1).joined() + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
