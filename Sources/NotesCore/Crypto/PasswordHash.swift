import CSodium

/// Password hashing with argon2id (libsodium `crypto_pwhash_str`), at a cost chosen to fit the
/// server's memory budget while meeting OWASP's minimum for argon2id.
///
/// OWASP's Password Storage Cheat Sheet lists equivalent argon2id minimums: m=19 MiB t=2 p=1,
/// m=12 MiB t=3, m=9 MiB t=4, ... We use the first (libsodium always runs p=1). libsodium's
/// "interactive" preset costs 64 MiB per hash: two sign-ins at once would take the
/// server from ~27 MiB to 157 MiB, against the 64 MiB of docs/architecture.md's Performance targets. At 19 MiB, with one hash at a
/// time (`PasswordWorker`), the peak stays near 27 + 19 MiB.
///
/// Hash strings carry their own parameters, so hashes made at the old cost still verify;
/// `needsRehash` tells a successful sign-in to store a new hash at today's cost.
///
/// Each call costs tens of milliseconds of CPU on purpose: run it on `PasswordWorker`'s queue,
/// never on an HTTP connection thread or Swift's cooperative pool. Only the server hashes
/// passwords; this lives in NotesCore because NotesCore owns libsodium (docs/architecture.md §2).
public enum PasswordHash {
    /// Why hashing failed: the only cause libsodium reports is running out of memory.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String { "password hashing failed (out of memory)" }
    }

    /// argon2id passes over memory (`t`).
    static let opsLimit: UInt64 = 2
    /// argon2id memory in bytes (`m`, 19 MiB: `m=19456` in the hash string).
    static let memoryBytes = 19 * 1024 * 1024

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
                crypto_pwhash_str(&out, chars.baseAddress!, UInt64(chars.count - 1), opsLimit, memoryBytes)
            }
        }
        guard status == 0 else { throw Failure() }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches a stored argon2id hash, at whatever cost it was made; false for
    /// any malformed hash.
    public static func verify(_ password: String, against stored: String) -> Bool {
        Sodium.requireReady()
        guard let hash = cString(stored) else { return false }
        let bytes = Array(password.utf8) + [0]
        return bytes.withUnsafeBufferPointer { pw in
            pw.withMemoryRebound(to: CChar.self) { chars in
                crypto_pwhash_str_verify(hash, chars.baseAddress!, UInt64(chars.count - 1)) == 0
            }
        }
    }

    /// Whether a well-formed stored hash was made at another cost than today's (an older server's
    /// 64 MiB hashes), so a successful sign-in should replace it. False for a malformed string.
    public static func needsRehash(_ stored: String) -> Bool {
        Sodium.requireReady()
        guard let hash = cString(stored) else { return false }
        return crypto_pwhash_str_needs_rehash(hash, opsLimit, memoryBytes) == 1
    }

    /// `stored` as a NUL-padded buffer of libsodium's string size, or `nil` when too long.
    private static func cString(_ stored: String) -> [CChar]? {
        var hash = Array(stored.utf8CString)
        guard hash.count <= Int(crypto_pwhash_STRBYTES) else { return nil }
        hash += [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES) - hash.count)
        return hash
    }

    /// A well-formed hash of a random password, verified against when the user is unknown so that
    /// an unknown user costs the same time as a wrong password.
    public static let decoy: String = (try? make(Hex.encode(SecureRandom.bytes(count: 16)))) ?? ""
}
