import CCrypto

/// SHA-256 digests, the content hash that server and client compare (docs/architecture.md, section 3.4: `hash`).
public enum SHA256 {
    /// The digest of `bytes` as 64 lowercase hex characters.
    public static func hex<Bytes: Collection>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Hex.encode(digest(of: bytes))
    }

    /// The 32-byte digest of `bytes`.
    ///
    /// Through the plain-struct calls (`notes_sha256_*`) rather than the one-shot `SHA256()`,
    /// which in OpenSSL 3 looks the algorithm up and allocates a context on every call: that
    /// lookup cost more than hashing a bearer token on each authenticated request.
    public static func digest<Bytes: Collection>(of bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        let hashed: [UInt8]? = bytes.withContiguousStorageIfAvailable { digest(UnsafeRawBufferPointer($0)) }
        return hashed ?? Array(bytes).withUnsafeBytes { digest($0) }
    }

    private static func digest(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var context = SHA256_CTX()
        notes_sha256_init(&context)
        notes_sha256_update(&context, buffer.baseAddress, buffer.count)
        return [UInt8](unsafeUninitializedCapacity: Int(SHA256_DIGEST_LENGTH)) { out, count in
            notes_sha256_final(&context, out.baseAddress)
            count = Int(SHA256_DIGEST_LENGTH)
        }
    }

    /// The hex digest of a string's UTF-8 bytes.
    public static func hex(of string: String) -> String {
        var string = string
        return string.withUTF8 { hex(of: $0) }
    }
}

/// Lowercase hexadecimal encoding.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The lowercase hex digit for `value` (0–15).
    @inline(__always)
    static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") &+ value : UInt8(ascii: "a") &+ (value &- 10)
    }

    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var chars: [UInt8] = []
        chars.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            chars.append(digits[Int(byte >> 4)])
            chars.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: chars, as: UTF8.self)
    }

    /// The bytes `hex` spells (upper- or lowercase digits, two per byte), or nil when it is not
    /// an even number of hexadecimal digits.
    public static func decode(_ hex: String) -> [UInt8]? {
        func value(_ char: UInt8) -> UInt8? {
            switch char {
            case 0x30...0x39: char - 0x30
            case 0x61...0x66: char - 0x61 + 10
            case 0x41...0x46: char - 0x41 + 10
            default: nil
            }
        }
        let chars = Array(hex.utf8)
        guard chars.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chars.count / 2)
        for index in stride(from: 0, to: chars.count, by: 2) {
            guard let high = value(chars[index]), let low = value(chars[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
