/// JSON written by hand for the wire shapes on hot paths (a note, a page of notes or changes, a
/// batch answer, an error): `JSONEncoder` spent a fifth of the server's time on a
/// `GET /v1/notes/{id}`, most of it boxing values and converting key names.
///
/// The output is byte for byte what `WireJSON.encoder()` writes for the same value (sorted
/// snake_case keys, absent optionals left out, slashes unescaped, the same string escapes), which
/// `WireJSONWriterTests` checks against the Codable types, so clients see no difference.
public struct WireJSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Whether the next member or element needs a comma before it.
    private var needsComma = false

    public init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Writes `{`, lets `body` write the members (in sorted key order), then `}`.
    public mutating func object(_ body: (inout WireJSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Writes `[`, one element per item through `element`, then `]`.
    public mutating func array<Items: Sequence>(_ items: Items, _ element: (inout WireJSONWriter, Items.Element) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        for item in items { element(&self, item) }
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes the member name `key` (already snake_case, needing no escapes) and its colon.
    public mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func value(_ text: String) {
        separate()
        appendEscaped(text)
        needsComma = true
    }

    public mutating func value(_ number: Int64) {
        separate()
        bytes.append(contentsOf: String(number).utf8)
        needsComma = true
    }

    public mutating func value(_ number: Int) {
        value(Int64(number))
    }

    public mutating func value(_ flag: Bool) {
        separate()
        let literal: StaticString = flag ? "true" : "false"
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
        needsComma = true
    }

    /// A member written only when `value` is present, as the synthesized `Encodable` does.
    public mutating func member(_ name: StaticString, ifPresent value: String?) {
        guard let value else { return }
        key(name)
        self.value(value)
    }

    public mutating func member(_ name: StaticString, ifPresent value: Int64?) {
        guard let value else { return }
        key(name)
        self.value(value)
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendEscaped(_ text: String) {
        Self.appendString(text, to: &bytes)
    }

    /// Appends `text` to `bytes` as a JSON string, escaped as Foundation's encoder does: `"` and
    /// `\` with a backslash, the five short control escapes, other controls as `\u00XX`;
    /// everything else, `/` and non-ASCII included, as its UTF-8 bytes. For JSON laid out
    /// otherwise than this writer lays it out (the export's indented manifest).
    public static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            let raw = UnsafeRawBufferPointer(utf8)
            var start = 0
            var index = 0
            while index < utf8.count {
                // Eight bytes at a time while none needs an escape: most of a note's text.
                if index + 8 <= utf8.count, !Self.mayNeedEscape(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                    index += 8
                    continue
                }
                let byte = utf8[index]
                index += 1
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                let escaped = index - 1
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<escaped]))
                start = index
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                              hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes in `word` is a control character, `"` or `\`: never
    /// false when one is (it may be true when none is; the caller then looks byte by byte).
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        // A byte below n (n ≤ 128) leaves its high bit set in (x - n·ones) & ~x; a byte equal
        // to c is a zero byte of x ^ c·ones, that is one below 1.
        func hasByteBelow(_ x: UInt64, _ n: UInt64) -> Bool { (x &- ones &* n) & ~x & highBits != 0 }
        return hasByteBelow(word, 0x20) || hasByteBelow(word ^ (ones &* 0x22), 1) || hasByteBelow(word ^ (ones &* 0x5C), 1)
    }
}

/// A wire type that writes its own JSON (see `WireJSONWriter`); `Encodable` stays its contract.
public protocol WireJSONWritable: Encodable {
    func write(to writer: inout WireJSONWriter)
    /// About how many bytes `write(to:)` produces, so the buffer is allocated once rather than
    /// regrown (and copied) on the way; a guess, never a limit.
    var wireJSONSizeHint: Int { get }
}

extension WireJSONWritable {
    public var wireJSONSizeHint: Int { 256 }

    /// The JSON bytes, as `WireJSON.encoder().encode(self)` would give them.
    public func wireJSON() -> [UInt8] {
        var writer = WireJSONWriter(reservingCapacity: wireJSONSizeHint)
        write(to: &writer)
        return writer.bytes
    }
}

extension NoteResource: WireJSONWritable {
    /// The content and path (plus a few escapes) and about 300 bytes of keys, stamps and hash.
    public var wireJSONSizeHint: Int { (content?.utf8.count ?? 0) * 9 / 8 + path.utf8.count + 320 }

    public func write(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.member("content", ifPresent: content)
            json.key("created_at"); json.value(createdAt)
            json.key("deleted"); json.value(deleted)
            json.key("hash"); json.value(hash)
            json.key("id"); json.value(id.value)
            json.key("kind"); json.value(kind.rawValue)
            json.member("media_type", ifPresent: mediaType)
            json.key("path"); json.value(path)
            json.key("rev"); json.value(rev)
            json.key("size"); json.value(size)
            json.key("updated_at"); json.value(updatedAt)
        }
    }
}

extension NoteListPage: WireJSONWritable {
    public func write(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.member("next_cursor", ifPresent: nextCursor)
            json.key("notes"); json.array(notes) { json, note in note.write(to: &json) }
        }
    }
}

extension ChangesPage: WireJSONWritable {
    public func write(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.key("changes"); json.array(changes) { json, note in note.write(to: &json) }
            json.key("cursor"); json.value(cursor)
            json.key("has_more"); json.value(hasMore)
            json.member("user_id", ifPresent: userId)
        }
    }
}

extension APIErrorBody.Detail: WireJSONWritable {
    public func write(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.key("code"); json.value(code)
            json.key("message"); json.value(message)
        }
    }
}

extension APIErrorBody: WireJSONWritable {
    public func write(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.key("error"); error.write(to: &json)
        }
    }
}

extension BatchResult: WireJSONWritable {
    public func write(to writer: inout WireJSONWriter) {
        writer.object { json in
            if let error { json.key("error"); error.write(to: &json) }
            json.key("id"); json.value(id.value)
            if let note { json.key("note"); note.write(to: &json) }
            json.key("status"); json.value(status)
        }
    }
}

extension BatchResponse: WireJSONWritable {
    public func write(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.member("cursor_after", ifPresent: cursorAfter)
            json.member("cursor_before", ifPresent: cursorBefore)
            json.key("results"); json.array(results) { json, result in result.write(to: &json) }
        }
    }
}

extension BatchOperation: WireJSONWritable {
    public func write(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.member("content", ifPresent: content)
            json.member("hash", ifPresent: hash)
            json.key("id"); json.value(id.value)
            json.member("if_match", ifPresent: ifMatch)
            json.member("if_none_match", ifPresent: ifNoneMatch)
            if kind != .note { json.key("kind"); json.value(kind.rawValue) }
            json.key("op"); json.value(op.rawValue)
            json.member("path", ifPresent: path)
        }
    }
}

extension BatchRequest: WireJSONWritable {
    public func write(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.key("operations"); json.array(operations) { json, operation in operation.write(to: &json) }
        }
    }
}

extension ContentMissingRequest: WireJSONWritable {
    public func write(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.key("hashes"); json.array(hashes) { json, hash in json.value(hash) }
        }
    }
}

extension ContentMissingResponse: WireJSONWritable {
    public func write(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.key("missing"); json.array(missing) { json, hash in json.value(hash) }
        }
    }
}
