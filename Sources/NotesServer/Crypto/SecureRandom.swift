import CSodium
import NotesCore

/// Cryptographically secure random bytes and token secrets (libsodium `randombytes_buf`).
enum SecureRandom {
    /// `count` random bytes.
    static func bytes(count: Int) -> [UInt8] {
        Sodium.requireReady()
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
        return out
    }

    /// A URL-safe secret of `byteCount` random bytes behind a recognisable prefix, such as
    /// `nat_` for access tokens, so a leaked secret is easy to spot and scan for.
    static func token(prefix: String, byteCount: Int = 32) -> String {
        prefix + Base64URL.encode(bytes(count: byteCount))
    }

    /// A random identifier of `byteCount` bytes as lowercase hex (not a secret by itself).
    static func hexIdentifier(byteCount: Int = 8) -> String {
        Hex.encode(bytes(count: byteCount))
    }
}

/// Unpadded base64url (RFC 4648 §5), the alphabet that survives headers, URLs and shells.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let n = UInt32(bytes[index]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)]]
        } else if rest == 2 {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
