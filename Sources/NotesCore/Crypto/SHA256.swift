import CCrypto

/// SHA-256 digests, the content hash that server and client compare (DESIGN 2: `hash`).
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

    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var chars: [UInt8] = []
        chars.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            chars.append(digits[Int(byte >> 4)])
            chars.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: chars, as: UTF8.self)
    }
}
