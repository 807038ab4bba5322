import CSodium

/// Password hashing with argon2id (libsodium `crypto_pwhash_str`, interactive limits).
///
/// Each call costs tens of milliseconds of CPU on purpose: run it on a dedicated bounded queue,
/// never on an HTTP connection thread or Swift's cooperative pool.
public enum PasswordHash {
    /// Why hashing failed: the only cause libsodium reports is running out of memory.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String { "password hashing failed (out of memory)" }
    }

    /// The longest password accepted, in bytes; far above any real passphrase, and it bounds work.
    public static let maxPasswordBytes = 1024

    /// A self-describing argon2id hash string (algorithm, parameters, salt and digest) for storage.
    public static func make(_ password: String) throws -> String {
        Sodium.requireReady()
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
        // A trailing NUL keeps the buffer non-empty, so an empty password still has an address.
        let bytes = Array(password.utf8) + [0]
        let status = bytes.withUnsafeBufferPointer { pw in
            pw.withMemoryRebound(to: CChar.self) { chars in
                crypto_pwhash_str(
                    &out, chars.baseAddress!, UInt64(chars.count - 1),
                    UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE), Int(crypto_pwhash_MEMLIMIT_INTERACTIVE)
                )
            }
        }
        guard status == 0 else { throw Failure() }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches a hash made by `make`; false for any malformed hash.
    public static func verify(_ password: String, against stored: String) -> Bool {
        Sodium.requireReady()
        var hash = Array(stored.utf8CString)
        guard hash.count <= Int(crypto_pwhash_STRBYTES) else { return false }
        hash += [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES) - hash.count)
        let bytes = Array(password.utf8) + [0]
        return bytes.withUnsafeBufferPointer { pw in
            pw.withMemoryRebound(to: CChar.self) { chars in
                crypto_pwhash_str_verify(hash, chars.baseAddress!, UInt64(chars.count - 1)) == 0
            }
        }
    }

    /// A well-formed hash of a random password, verified against when the user is unknown so that
    /// an unknown user costs the same time as a wrong password.
    public static let decoy: String = (try? make(Hex.encode(SecureRandom.bytes(count: 16)))) ?? ""
}
