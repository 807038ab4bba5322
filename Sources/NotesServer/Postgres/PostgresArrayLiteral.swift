/// A one-dimensional PostgreSQL array in its text form (`{"a","b",NULL}`), bound as one text
/// value and cast in the statement (`?::text[]`, `?::bigint[]`): how a batch hands a column of
/// many rows to one statement (`unnest`, `= ANY`) through the connection's text parameters.
///
/// Every text element is double-quoted, with `"` and `\` escaped by a backslash, so nothing in
/// it (braces, commas, spaces, the word NULL) is read as array syntax; `nil` is an unquoted
/// `NULL`. The connection maps U+0000 in the whole literal as it does in any text value
/// (`PostgresTextEscape`), which maps each element exactly as if it were bound alone.
struct PostgresArrayLiteral {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var isEmpty = true

    init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity + 2)
    }

    /// An array of `texts`.
    init(_ texts: some Sequence<String>) {
        self.init()
        for text in texts { append(text) }
    }

    mutating func append(_ text: String?) {
        separate()
        guard let text else {
            bytes.append(contentsOf: "NULL".utf8)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func append(_ number: Int64) {
        separate()
        bytes.append(contentsOf: String(number).utf8)
    }

    mutating func append(_ flag: Bool) {
        separate()
        bytes.append(flag ? UInt8(ascii: "t") : UInt8(ascii: "f"))
    }

    private mutating func separate() {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
    }

    /// The literal, to bind as a text value.
    var text: String {
        String(decoding: bytes + [UInt8(ascii: "}")], as: UTF8.self)
    }
}
