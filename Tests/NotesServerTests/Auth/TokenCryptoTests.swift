import NotesCore
import Testing
@testable import NotesServer

/// The server's secrets: random tokens with their prefixes, base64url, constant-time comparison.
@Suite("Token secrets")
struct TokenCryptoTests {
    @Test("tokens carry their prefix, are URL-safe and never repeat")
    func tokensAreRandomAndPrefixed() {
        let tokens = (0..<100).map { _ in SecureRandom.token(prefix: "nat_") }
        #expect(Set(tokens).count == 100)
        for token in tokens {
            #expect(token.hasPrefix("nat_"))
            #expect(token.count == 4 + 43)
            #expect(token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        }
    }

    @Test("base64url encodes RFC 4648 vectors without padding")
    func base64URLVectors() {
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("fo".utf8)) == "Zm8")
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }

    @Test("constant-time equality agrees with ==")
    func constantTimeEquality() {
        #expect(ConstantTime.equal("secret", "secret"))
        #expect(!ConstantTime.equal("secret", "secreT"))
        #expect(!ConstantTime.equal("secret", "secret2"))
        #expect(ConstantTime.equal([UInt8](), []))
    }
}
