import NotesCore

/// The server's random secrets and identifiers, from NotesCore's secure random bytes.
extension SecureRandom {
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
