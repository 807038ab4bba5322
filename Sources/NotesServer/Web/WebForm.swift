/// A decoded `application/x-www-form-urlencoded` body (what an HTML form posts).
struct WebForm: Sendable {
    private var fields: [String: String] = [:]
    /// Every value of each field, in the order sent (checkboxes of one name send several).
    private var lists: [String: [String]] = [:]

    /// The empty form (a GET, or a POST without a body).
    init() {}

    /// A form whose fields were decoded elsewhere (the text fields of a multipart upload).
    init(fields: [String: String]) {
        self.fields = fields
        lists = fields.mapValues { [$0] }
    }

    /// Decodes `body`; nil when it is not valid form encoding of UTF-8 text.
    init?(body: [UInt8]) {
        guard !body.isEmpty else { return }
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : []) else { return nil }
            fields[name] = value
            lists[name, default: []].append(value)
        }
    }

    /// The value of field `name` (the last one when sent twice).
    subscript(name: String) -> String? { fields[name] }

    /// Every value of field `name`, in the order sent; empty when it was not sent.
    func values(_ name: String) -> [String] { lists[name] ?? [] }

    /// `+` is a space, `%XX` a byte; the bytes must be UTF-8.
    private static func decode(_ raw: ArraySlice<UInt8>) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            if byte == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < raw.endIndex,
                      let high = hexValue(raw[index + 1]), let low = hexValue(raw[index + 2]) else { return nil }
                bytes.append(high << 4 | low)
                index += 2
            } else {
                bytes.append(byte)
            }
            index += 1
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
