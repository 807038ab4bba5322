import Testing
import NotesCore
@testable import NotesServer

@Suite("SecretBox: a value sealed under a key derived from a secret")
struct SecretBoxTests {
    private let secret = "nrt_" + String(repeating: "k", count: 43)

    @Test("what is sealed opens with the same secret and context, and the box hides the plaintext")
    func sealOpensWithTheSameSecret() throws {
        let plaintext = Array("nat_successor-and-nrt_successor".utf8)
        let box = SecretBox.seal(plaintext, key: SecretBox.key(fromSecret: secret, context: "test"))
        #expect(box.count == 24 + plaintext.count + 16, "nonce, ciphertext, tag")
        #expect(!box.starts(with: plaintext) && Array(box.dropFirst(24)) != plaintext)
        #expect(SecretBox.open(box, key: SecretBox.key(fromSecret: secret, context: "test")) == plaintext)
        #expect(SecretBox.seal(plaintext, key: SecretBox.key(fromSecret: secret, context: "test")) != box, "a fresh nonce each time")
    }

    @Test("another secret, another context, a changed byte or a cut box never opens")
    func wrongKeyOrTamperingFails() {
        let key = SecretBox.key(fromSecret: secret, context: "test")
        let box = SecretBox.seal(Array("payload".utf8), key: key)
        #expect(SecretBox.open(box, key: SecretBox.key(fromSecret: secret + "x", context: "test")) == nil)
        #expect(SecretBox.open(box, key: SecretBox.key(fromSecret: secret, context: "other")) == nil)
        var altered = box
        altered[altered.count - 1] ^= 1
        #expect(SecretBox.open(altered, key: key) == nil)
        #expect(SecretBox.open(Array(box.prefix(30)), key: key) == nil)
        #expect(SecretBox.open([], key: key) == nil)
    }

    @Test("the derived key is not the SHA-256 a server stores to look the secret up")
    func keyIsUnrelatedToTheLookupDigest() {
        #expect(SecretBox.key(fromSecret: secret, context: "test") != SHA256.digest(of: Array(secret.utf8)))
        #expect(SecretBox.key(fromSecret: secret, context: "test").count == 32)
    }
}
