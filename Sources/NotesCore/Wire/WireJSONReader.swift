import Foundation

/// JSON read by hand for the shapes a sync downloads in bulk (pages of changes, batch answers):
/// `JSONDecoder` took a fifth of the client's time in an upload and in a clone, most of it
/// boxing each field of each note.
///
/// The reader is strict and small: it takes what `WireJSONWriter` and `JSONEncoder` write
/// (any whitespace, any member order, unknown members skipped, every string escape), and
/// refuses anything else (a number with a fraction or exponent, invalid UTF-8, a missing or
/// mistyped field). A refusal is not an error to the caller: `WireJSONReading.decode` returns
/// nil and the caller decodes with `JSONDecoder`, whose answer (a value or a precise error)
/// stands. So the hand reader only ever adds speed; `WireJSONReaderTests` checks it gives the
/// Codable types' values for the same bytes.
public struct WireJSONReader {
    /// The input does not have the shape this reader takes (see the type's comment).
    public struct Refusal: Error {}

    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    fileprivate init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Whether only whitespace is left.
    fileprivate mutating func atEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    /// Reads an object, calling `member` with each key; `member` must read (or `skipValue()`)
    /// the value.
    public mutating func object(_ member: (inout WireJSONReader, String) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if try consumeIf(UInt8(ascii: "}")) { return }
        repeat {
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try member(&self, key)
        } while try consumeIf(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    /// Reads an object as `object(_:)` does, handing `member` each key as its bytes rather than
    /// as a string: for the shapes a client reads in bulk, whose names are plain ASCII. Making a
    /// string of each key and comparing it with each name in turn was about a third of reading
    /// a batch answer. A key with an escape or a byte outside printable ASCII is refused
    /// (`JSONDecoder` then decides), so what this reads is what `object(_:)` reads.
    public mutating func asciiKeyedObject(_ member: (inout WireJSONReader, WireJSONKey) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if try consumeIf(UInt8(ascii: "}")) { return }
        repeat {
            try expect(UInt8(ascii: "\""))
            let start = index
            while let byte = bytes[safe: index], byte != UInt8(ascii: "\"") {
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { throw Refusal() }
                index += 1
            }
            guard index < bytes.count else { throw Refusal() }
            let key = WireJSONKey(bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
            index += 1
            try expect(UInt8(ascii: ":"))
            try member(&self, key)
        } while try consumeIf(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    /// Reads an array, one element per call of `element`.
    public mutating func array<Element>(_ element: (inout WireJSONReader) throws -> Element) throws -> [Element] {
        try expect(UInt8(ascii: "["))
        var elements: [Element] = []
        if try consumeIf(UInt8(ascii: "]")) { return elements }
        repeat {
            elements.append(try element(&self))
        } while try consumeIf(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
        return elements
    }

    /// `null` (consumed, returning nil) or a value read by `value`.
    public mutating func optional<Value>(_ value: (inout WireJSONReader) throws -> Value) throws -> Value? {
        skipWhitespace()
        if bytes[safe: index] == UInt8(ascii: "n") {
            try literal("null")
            return nil
        }
        return try value(&self)
    }

    public mutating func bool() throws -> Bool {
        skipWhitespace()
        switch bytes[safe: index] {
        case UInt8(ascii: "t"): try literal("true"); return true
        case UInt8(ascii: "f"): try literal("false"); return false
        default: throw Refusal()
        }
    }

    /// An integer written without fraction or exponent, within `Int64`.
    public mutating func int64() throws -> Int64 {
        skipWhitespace()
        let negative = bytes[safe: index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let start = index
        var magnitude: UInt64 = 0
        while let byte = bytes[safe: index], byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw Refusal() }
            magnitude = sum
            index += 1
        }
        let digits = index - start
        guard digits > 0, !(digits > 1 && bytes[start] == UInt8(ascii: "0")) else { throw Refusal() }
        if let next = bytes[safe: index], next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            throw Refusal()
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { throw Refusal() }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { throw Refusal() }
        return Int64(magnitude)
    }

    public mutating func int() throws -> Int {
        Int(try int64())
    }

    /// A string, its escapes decoded; refused when it is not valid UTF-8 or holds a raw
    /// control character or a lone surrogate escape.
    public mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        // The common case: no escape, so the text is the bytes between the quotes.
        index = plainRunEnd(from: index)
        guard let stop = bytes[safe: index], stop >= 0x20 else { throw Refusal() }
        if stop == UInt8(ascii: "\"") {
            index += 1
            return try text(UnsafeRawBufferPointer(rebasing: bytes[start..<index - 1]))
        }
        // Escapes (every note has newlines, a note of 2 KB about a hundred): the closing quote is
        // found first (a backslash and the byte after it are stepped over: no escape holds a
        // quote or a backslash past its first byte), then the text is decoded into a buffer of
        // that size (no escape decodes to more bytes than it is written with), the plain runs
        // between escapes copied whole. An array grown escape by escape was a twentieth of a
        // clone's CPU. The first pass keeps where each backslash is, so the second copies the
        // runs between them without looking at their bytes again: scanning every run twice was
        // a twentieth of the server's CPU on an upload (perf, 10,000 notes).
        var end = index
        var backslashes: [Int] = []
        backslashes.reserveCapacity(64)
        while true {
            end = plainRunEnd(from: end)
            guard let byte = bytes[safe: end], byte >= 0x20 else { throw Refusal() }
            if byte == UInt8(ascii: "\"") { break }
            backslashes.append(end)
            end += 2
        }
        let unescaped = try [UInt8](unsafeUninitializedCapacity: end - start) { buffer, written in
            guard let output = buffer.baseAddress, let input = bytes.baseAddress else { throw Refusal() }
            let source = input.assumingMemoryBound(to: UInt8.self)
            output.initialize(from: source + start, count: index - start)
            written = index - start
            // A surrogate pair's second escape was stepped over with the first: skip it here.
            for backslash in backslashes where backslash >= index {
                (output + written).initialize(from: source + index, count: backslash - index)
                written += backslash - index
                index = backslash + 1
                written += try unescape(into: output + written)
                guard index <= end else { throw Refusal() }
            }
            (output + written).initialize(from: source + index, count: end - index)
            written += end - index
            index = end
        }
        guard index == end else { throw Refusal() }
        index += 1
        return try unescaped.withUnsafeBytes { try text($0) }
    }

    /// The index of the first quote, backslash or control byte at or after `start`, or the
    /// end: the plain run of a string.
    private func plainRunEnd(from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        return JSONStringBytes.plainRunEnd(base, count: bytes.count, from: start)
    }

    /// Skips one value of any kind (a member this reader does not know).
    public mutating func skipValue() throws {
        skipWhitespace()
        switch bytes[safe: index] {
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "{"): try object { reader, _ in try reader.skipValue() }
        case UInt8(ascii: "["): _ = try array { reader in try reader.skipValue() }
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try int64()
        }
    }

    /// The string `utf8` spells, refused when it is not valid UTF-8.
    ///
    /// Checked by `UTF8Validation` (eight ASCII bytes at a time), then taken with
    /// `String(decoding:)`, which on valid input is the same string: the standard library's
    /// `String(validating:as:)` cost about 1,200 instructions for each of the short strings of a
    /// batch answer (ids, hashes, stamps, paths), 8 % of a 10,000-note upload's client
    /// instructions under callgrind.
    private func text(_ utf8: UnsafeRawBufferPointer) throws -> String {
        let bytes = utf8.assumingMemoryBound(to: UInt8.self)
        guard UTF8Validation.isValid(bytes) else { throw Refusal() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes the escape after a backslash (already consumed) into `output`, returning how
    /// many bytes it wrote (at most 4: never more than the escape is written with).
    private mutating func unescape(into output: UnsafeMutablePointer<UInt8>) throws -> Int {
        guard let kind = bytes[safe: index] else { throw Refusal() }
        index += 1
        let byte: UInt8
        switch kind {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): byte = kind
        case UInt8(ascii: "b"): byte = 0x08
        case UInt8(ascii: "f"): byte = 0x0C
        case UInt8(ascii: "n"): byte = 0x0A
        case UInt8(ascii: "r"): byte = 0x0D
        case UInt8(ascii: "t"): byte = 0x09
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard bytes[safe: index] == UInt8(ascii: "\\"), bytes[safe: index + 1] == UInt8(ascii: "u") else { throw Refusal() }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw Refusal() }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar), let encoded = UTF8.encode(unicode) else { throw Refusal() }
            var count = 0
            for encodedByte in encoded {
                output[count] = encodedByte
                count += 1
            }
            return count
        default:
            throw Refusal()
        }
        output.initialize(to: byte)
        return 1
    }

    private mutating func hex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = bytes[safe: index] else { throw Refusal() }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Refusal()
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func literal(_ word: StaticString) throws {
        skipWhitespace()
        let start = index
        let matches = word.withUTF8Buffer { expected in
            start + expected.count <= bytes.count && expected.indices.allSatisfy { bytes[start + $0] == expected[$0] }
        }
        guard matches else { throw Refusal() }
        index += word.utf8CodeUnitCount
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard try consumeIf(byte) else { throw Refusal() }
    }

    private mutating func consumeIf(_ byte: UInt8) throws -> Bool {
        skipWhitespace()
        guard bytes[safe: index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while let byte = bytes[safe: index],
              byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t") {
            index += 1
        }
    }
}

/// An object's key as `WireJSONReader.asciiKeyedObject(_:)` reads it: its bytes, valid only inside
/// the call that is handed it. Matched against names with `case "name":`.
public struct WireJSONKey {
    fileprivate let bytes: UnsafeRawBufferPointer

    public static func ~= (name: StaticString, key: WireJSONKey) -> Bool {
        name.utf8CodeUnitCount == key.bytes.count && name.withUTF8Buffer { name in
            guard let nameBase = name.baseAddress, let keyBase = key.bytes.baseAddress else { return name.isEmpty }
            return memcmp(nameBase, keyBase, name.count) == 0
        }
    }
}

private extension UnsafeRawBufferPointer {
    subscript(safe index: Int) -> UInt8? {
        index < count ? self[index] : nil
    }
}

/// A wire type the client reads by hand (see `WireJSONReader`); `Decodable` stays its contract.
public protocol WireJSONReadable: Decodable {
    init(reading reader: inout WireJSONReader) throws
}

public enum WireJSONReading {
    /// `data` read by hand as `type`, or nil when the hand reader refuses it (then decode with
    /// `WireJSON.decoder()`, which decides).
    public static func decode<Value: WireJSONReadable>(_ type: Value.Type, from data: some ContiguousBytes) -> Value? {
        data.withUnsafeBytes { raw in
            var reader = WireJSONReader(raw)
            guard let value = try? Value(reading: &reader), reader.atEnd() else { return nil }
            return value
        }
    }
}

extension WireJSONReadable where Self: WireDescribed {
    /// Read through the type's `WireShape`.
    public init(reading reader: inout WireJSONReader) throws {
        self = try Self.wireShape.read(from: &reader)
    }
}

extension NoteResource: WireJSONReadable {}
extension ChangesPage: WireJSONReadable {}
extension APIErrorBody.Detail: WireJSONReadable {}
extension BatchResult: WireJSONReadable {}
extension BatchResponse: WireJSONReadable {}
extension ContentMissingRequest: WireJSONReadable {}
extension ContentMissingResponse: WireJSONReadable {}
/// The members of a batch body's operation: the bulk of an upload, read by hand on the server.
extension BatchOperation: WireJSONReadable {}
extension BatchRequest: WireJSONReadable {}
