import Testing
@testable import NotesCore

@Suite("HMAC-SHA256")
struct HMACSHA256Tests {
    @Test("HMAC-SHA256 matches RFC 4231's test cases 1, 2 and 6 (a key longer than a block)")
    func rfc4231Vectors() {
        #expect(Hex.encode(HMACSHA256.code(for: "Hi There", key: [UInt8](repeating: 0x0b, count: 20)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(Hex.encode(HMACSHA256.code(for: "what do ya want for nothing?", key: Array("Jefe".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(Hex.encode(HMACSHA256.code(for: "Test Using Larger Than Block-Size Key - Hash Key First",
                                           key: [UInt8](repeating: 0xaa, count: 131)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}
