import CCrypto

/// HMAC-SHA256 (RFC 2104) through libcrypto: the keyed digest AWS Signature Version 4 chains
/// to sign a request to an S3-compatible store.
public enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    public static func code(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        var length: UInt32 = 0
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        let written = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                out.withUnsafeMutableBytes { outBytes in
                    HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                         messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                         outBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        // HMAC with SHA-256 cannot fail short of the process running out of memory.
        precondition(written != nil && length == 32, "HMAC-SHA256 failed in libcrypto")
        return Array(out.prefix(Int(length)))
    }

    /// The code of a string's UTF-8 bytes.
    public static func code(for message: String, key: [UInt8]) -> [UInt8] {
        code(for: Array(message.utf8), key: key)
    }
}
