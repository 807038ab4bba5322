import Testing
@testable import NotesCore

@Suite("Hashing, random tokens and passwords")
struct CryptoTests {
    @Test("SHA-256 matches the FIPS 180-2 test vectors")
    func sha256Vectors() {
        #expect(SHA256.hex(of: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: Array("abc".utf8)) == SHA256.hex(of: "abc"))
    }

    @Test("content hashes are byte-exact: CRLF and LF differ")
    func hashIsByteExact() {
        #expect(SHA256.hex(of: "a\r\nb") != SHA256.hex(of: "a\nb"))
    }

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
