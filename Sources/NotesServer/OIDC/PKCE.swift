import NotesCore

/// Proof Key for Code Exchange (RFC 7636) with the S256 method, the only one Notes uses or accepts.
enum PKCE {
    /// A fresh verifier: 32 random bytes in base64url (43 characters).
    static func makeVerifier() -> String {
        Base64URL.encode(SecureRandom.bytes(count: 32))
    }

    /// `BASE64URL(SHA256(verifier))`.
    static func challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.digest(of: Array(verifier.utf8)))
    }

    /// Whether `text` is a well-formed verifier (§4.1) or S256 challenge: 43 to 128 of
    /// `A-Z a-z 0-9 - . _ ~`.
    static func isWellFormed(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count) && text.utf8.allSatisfy(isUnreserved)
    }

    /// Whether `verifier` answers `challenge`, compared in constant time.
    static func verifies(_ verifier: String, challenge: String) -> Bool {
        isWellFormed(verifier) && ConstantTime.equal(challenge, Self.challenge(for: verifier))
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
