import CSodium

/// Authenticated symmetric encryption (libsodium `crypto_secretbox`: XSalsa20-Poly1305) under a
/// key derived from a high-entropy secret, for a value that must be kept briefly and be readable
/// only by someone who presents that secret again.
public enum SecretBox {
    /// A 32-byte key derived from `secret` (BLAKE2b over `context` and the secret). The context
    /// separates uses, so the key is unrelated to any other digest of the same secret (such as
    /// the SHA-256 a server stores to look the secret up).
    public static func key(fromSecret secret: String, context: String) -> [UInt8] {
        Sodium.requireReady()
        let input = Array(context.utf8) + [0] + Array(secret.utf8)
        var key = [UInt8](repeating: 0, count: Int(crypto_secretbox_keybytes()))
        let keyCount = key.count
        key.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { message in
                _ = crypto_generichash(out.baseAddress!, keyCount, message.baseAddress, UInt64(message.count), nil, 0)
            }
        }
        return key
    }

    /// `plaintext` (not empty) encrypted and authenticated under `key` (from
    /// `key(fromSecret:context:)`), as a random nonce followed by the ciphertext.
    public static func seal(_ plaintext: [UInt8], key: [UInt8]) -> [UInt8] {
        precondition(key.count == Int(crypto_secretbox_keybytes()) && !plaintext.isEmpty, "a secretbox seals something under a 32-byte key")
        let nonce = SecureRandom.bytes(count: Int(crypto_secretbox_noncebytes()))
        var sealed = [UInt8](repeating: 0, count: plaintext.count + Int(crypto_secretbox_macbytes()))
        sealed.withUnsafeMutableBufferPointer { out in
            plaintext.withUnsafeBufferPointer { message in
                _ = crypto_secretbox_easy(out.baseAddress!, message.baseAddress, UInt64(message.count), nonce, key)
            }
        }
        return nonce + sealed
    }

    /// The plaintext of `box` made by `seal` under `key`, or `nil` when the key is wrong or the
    /// box was altered or cut short.
    public static func open(_ box: [UInt8], key: [UInt8]) -> [UInt8]? {
        Sodium.requireReady()
        let nonceCount = Int(crypto_secretbox_noncebytes()), macCount = Int(crypto_secretbox_macbytes())
        guard key.count == Int(crypto_secretbox_keybytes()), box.count > nonceCount + macCount else { return nil }
        let nonce = Array(box.prefix(nonceCount))
        let sealed = Array(box.dropFirst(nonceCount))
        var plaintext = [UInt8](repeating: 0, count: sealed.count - macCount)
        let status = plaintext.withUnsafeMutableBufferPointer { out in
            sealed.withUnsafeBufferPointer { input in
                crypto_secretbox_open_easy(out.baseAddress, input.baseAddress!, UInt64(input.count), nonce, key)
            }
        }
        return status == 0 ? plaintext : nil
    }
}
