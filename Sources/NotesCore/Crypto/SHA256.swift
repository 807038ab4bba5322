import CCrypto

/// SHA-256 digests, the content hash that server and client compare (DESIGN 2: `hash`).
public enum SHA256 {
    /// The digest of `bytes` as 64 lowercase hex characters.
    public static func hex<Bytes: Collection>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Hex.encode(digest(of: bytes))
    }

    /// The 32-byte digest of `bytes`.
    public static func digest<Bytes: Collection>(of bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var out = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let hashed: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            out.withUnsafeMutableBufferPointer { digest in
                _ = CCrypto.SHA256(buffer.baseAddress, buffer.count, digest.baseAddress)
            }
        }
        if hashed == nil {
            let copy = Array(bytes)
            copy.withUnsafeBufferPointer { buffer in
                out.withUnsafeMutableBufferPointer { digest in
                    _ = CCrypto.SHA256(buffer.baseAddress, buffer.count, digest.baseAddress)
                }
            }
        }
        return out
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
