import Testing
@testable import NotesCore

@Suite("Content hashing")
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

    @Test("hex decoding gives back the bytes encoding spelled, and refuses an odd length or a non-hex digit")
    func hexDecodesWhatItEncodes() {
        let bytes: [UInt8] = [0x00, 0x0F, 0x10, 0x7F, 0x80, 0xAB, 0xFF]
        #expect(Hex.decode(Hex.encode(bytes)) == bytes)
        #expect(Hex.decode("ABff") == [0xAB, 0xFF])
        #expect(Hex.decode("") == [])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
    }
}
