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

    /// Writes `text` as it is: JSON laid out by the caller around values written here (a page's
    /// `{"changes":[` before its entries, `]` after them). `separatesNext` says whether a member
    /// or element written next needs a comma before it.
    public mutating func verbatim(_ text: StaticString, separatesNext: Bool) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        needsComma = separatesNext
    }

    /// Where the output stands, to come back to (`rewind(to:)`).
    public struct Mark: Sendable {
        fileprivate let count: Int
        fileprivate let needsComma: Bool
    }

    public var mark: Mark { Mark(count: bytes.count, needsComma: needsComma) }

    /// Takes back everything written since `mark` was taken.
    public mutating func rewind(to mark: Mark) {
        bytes.removeLast(bytes.count - mark.count)
        needsComma = mark.needsComma
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
        // Digits straight into the output: `String(number)` made and dropped a string for each
        // of an entry's `rev` and `size`.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = number.magnitude
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if number < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
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
    ///
    /// Text without escapes is appended as it is. Otherwise the escaped text is written through a
    /// pointer, eight bytes at a time, into a buffer large enough for the worst case (only the
    /// pages written to take memory), then appended whole. Appending run by run and escape by
    /// escape (a note of 2 KB has about fifty newlines) cost about 17 instructions a byte, a tenth
    /// of an upload's client instructions.
    public static func appendString(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            guard let input = utf8.baseAddress, !utf8.isEmpty else {
                bytes.append(UInt8(ascii: "\""))
                bytes.append(UInt8(ascii: "\""))
                return
            }
            let count = utf8.count
            let raw = UnsafeRawPointer(input)
            // Most strings (ids, hashes, stamps, most paths) need no escape: appended as they are.
            let first = JSONStringBytes.plainRunEnd(raw, count: count, from: 0)
            guard first < count else {
                bytes.append(UInt8(ascii: "\""))
                bytes.append(contentsOf: utf8)
                bytes.append(UInt8(ascii: "\""))
                return
            }
            // No escape makes a byte more than six; eight bytes more for the last word stored whole.
            let escaped = [UInt8](unsafeUninitializedCapacity: first + (count - first) * 6 + 2 + 8) { buffer, written in
                guard let output = buffer.baseAddress else { return }
                let outputRaw = UnsafeMutableRawPointer(output)
                output[0] = UInt8(ascii: "\"")
                (output + 1).initialize(from: input, count: first)
                var out = 1 + first
                var at = first
                // Each word is stored whole (the buffer has room: six bytes for each byte of text
                // from it on), then `out` moves over the bytes before the first one needing an
                // escape. Every escape in a word is written from that word: after one, the rest of the
                // word is stored again, shifted, past it (a note's text has an escape every ten
                // bytes or so, and loading the word again after each was half of the loop).
                while at + 8 <= count {
                    var word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                    outputRaw.storeBytes(of: word.littleEndian, toByteOffset: out, as: UInt64.self)
                    var hits = JSONStringBytes.escapeMask(word)
                    var left = 8
                    while hits != 0 {
                        let clean = hits.trailingZeroBitCount >> 3
                        out = writeEscape(UInt8(truncatingIfNeeded: word >> UInt64(clean * 8)), to: output, at: out + clean)
                        // Shifts of 64 bits leave zero (Swift's `>>` on integers).
                        let used = clean + 1
                        word >>= UInt64(used * 8)
                        hits >>= UInt64(used * 8)
                        at += used
                        left -= used
                        // The buffer has room: six bytes for each byte of text left, and eight more.
                        outputRaw.storeBytes(of: word.littleEndian, toByteOffset: out, as: UInt64.self)
                    }
                    out += left
                    at += left
                }
                while at < count {
                    let byte = input[at]
                    if JSONStringBytes.needsEscape(byte) {
                        out = writeEscape(byte, to: output, at: out)
                    } else {
                        output[out] = byte
                        out += 1
                    }
                    at += 1
                }
                output[out] = UInt8(ascii: "\"")
                written = out + 1
            }
            bytes.append(contentsOf: escaped)
        }
    }

    /// Writes the escape of `byte` (a control character, `"` or `\`) at `output + at`; returns
    /// the index after it.
    private static func writeEscape(_ byte: UInt8, to output: UnsafeMutablePointer<UInt8>, at: Int) -> Int {
        output[at] = UInt8(ascii: "\\")
        let letter: UInt8
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): letter = byte
        case 0x0A: letter = UInt8(ascii: "n")
        case 0x0D: letter = UInt8(ascii: "r")
        case 0x09: letter = UInt8(ascii: "t")
        case 0x08: letter = UInt8(ascii: "b")
        case 0x0C: letter = UInt8(ascii: "f")
        default:
            let hex: StaticString = "0123456789abcdef"
            output[at + 1] = UInt8(ascii: "u")
            output[at + 2] = UInt8(ascii: "0")
            output[at + 3] = UInt8(ascii: "0")
            output[at + 4] = hex.utf8Start[Int(byte >> 4)]
            output[at + 5] = hex.utf8Start[Int(byte & 0x0F)]
            return at + 6
        }
        output[at + 1] = letter
        return at + 2
    }
}

/// A wire type that writes its own JSON (see `WireJSONWriter`) through its `WireShape`;
/// `Encodable` stays its contract.
public protocol WireJSONWritable: Encodable {
    func write(to writer: inout WireJSONWriter)
    /// About how many bytes `write(to:)` produces, so the buffer is allocated once rather than
    /// regrown (and copied) on the way; a guess, never a limit.
    var wireJSONSizeHint: Int { get }
}

extension WireJSONWritable where Self: WireDescribed {
    @inlinable
    public func write(to writer: inout WireJSONWriter) {
        Self.wireShape.write(self, to: &writer)
    }
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
}

extension NoteListPage: WireJSONWritable {
    /// Sized from the notes, so a page of a thousand is written into one buffer rather than one
    /// regrown (and copied) ten times on the way.
    public var wireJSONSizeHint: Int { notes.reduce(64) { $0 + $1.wireJSONSizeHint } }
}

extension ChangesPage: WireJSONWritable {}
extension APIErrorBody.Detail: WireJSONWritable {}
extension APIErrorBody: WireJSONWritable {}
extension BatchResult: WireJSONWritable {}
extension BatchResponse: WireJSONWritable {}
extension ContentMissingRequest: WireJSONWritable {}
extension ContentMissingResponse: WireJSONWritable {}

extension BatchOperation: WireJSONWritable {
    /// The content and path (plus a few escapes) and about 150 bytes of keys, id and precondition.
    public var wireJSONSizeHint: Int { (content?.utf8.count ?? 0) * 9 / 8 + (path?.utf8.count ?? 0) * 9 / 8 + 160 }
}

extension BatchRequest: WireJSONWritable {
    /// The bytes of a batch request's body besides its operations and the commas between them:
    /// `{"operations":[` and `]}`.
    public static let wireJSONFraming = 17

    /// The body of a batch of operations already written one by one (each `wireJSON()` of a
    /// `BatchOperation`, in order): the bytes `wireJSON()` writes for them, without writing
    /// them again. Sync writes each operation as it adds it to a batch, to fill the batch up to
    /// a size on the wire (`BatchRequestBytesTests` checks the two agree).
    public static func wireJSON(written operations: [[UInt8]]) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(operations.reduce(wireJSONFraming + operations.count) { $0 + $1.count })
        let open: StaticString = #"{"operations":["#
        open.withUTF8Buffer { body.append(contentsOf: $0) }
        for (index, operation) in operations.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: operation)
        }
        body.append(UInt8(ascii: "]"))
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// Sized from the operations, so a batch of 48 KiB of notes is written into one buffer rather
    /// than one regrown (and copied) eight times on the way.
    public var wireJSONSizeHint: Int { operations.reduce(32) { $0 + $1.wireJSONSizeHint } }

}
