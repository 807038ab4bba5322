import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import NotesServer

@Suite("HTTP: trusted proxies and the client address")
struct ClientAddressTests {
    @Test("CIDR ranges parse for IPv4 and IPv6, bare addresses are single hosts, typos are refused",
          arguments: [
            ("10.0.0.0/8", "10.0.0.0/8"), ("127.0.0.1", "127.0.0.1/32"), ("::1", "::1/128"),
            ("fd00::/8", "fd00::/8"), ("0.0.0.0/0", "0.0.0.0/0"), ("[2001:db8::]/32", "2001:db8::/32"),
            ("::ffff:10.1.2.0/120", nil), ("10.0.0.1/8", nil), ("10.0.0.0/33", nil), ("::/129", nil),
            ("10.0.0.0/", nil), ("10.0.0.0/-1", nil), ("10.0.0.0/+8", nil), ("example.com/8", nil), ("", nil),
          ] as [(String, String?)])
    func parsesRanges(text: String, expected: String?) {
        #expect(AddressRange(text)?.description == expected)
    }

    @Test("a range contains exactly the addresses under its prefix, and never the other family")
    func containment() throws {
        let v4 = try #require(AddressRange("192.168.4.0/22"))
        #expect(v4.contains(try #require(IPAddress("192.168.4.0"))))
        #expect(v4.contains(try #require(IPAddress("192.168.7.255"))))
        #expect(!v4.contains(try #require(IPAddress("192.168.8.0"))))
        #expect(!v4.contains(try #require(IPAddress("192.168.3.255"))))
        #expect(v4.contains(try #require(IPAddress("::ffff:192.168.5.1"))), "IPv4-mapped IPv6 is the IPv4 address")
        let v6 = try #require(AddressRange("2001:db8::/33"))
        #expect(v6.contains(try #require(IPAddress("2001:db8:7fff::1"))))
        #expect(!v6.contains(try #require(IPAddress("2001:db8:8000::1"))))
        #expect(!v6.contains(try #require(IPAddress("32.1.13.184"))))
        #expect(try #require(AddressRange("0.0.0.0/0")).contains(try #require(IPAddress("8.8.8.8"))))
    }

    private let proxies = [AddressRange("10.0.0.0/8")!, AddressRange("fd00::/8")!]

    @Test("behind trusted proxies the client is the rightmost X-Forwarded-For hop that is not a proxy")
    func rightmostUntrusted() {
        func resolve(_ peer: String, _ headers: [String]) -> String {
            ClientAddress.resolve(peer: peer, forwardedFor: headers, trusted: proxies)
        }
        #expect(resolve("10.0.0.1", ["203.0.113.7"]) == "203.0.113.7")
        // The client forged a leftmost hop; only the hops our proxies appended count.
        #expect(resolve("10.0.0.1", ["6.6.6.6, 203.0.113.7, 10.0.0.2"]) == "203.0.113.7")
        #expect(resolve("10.0.0.1", ["6.6.6.6", "203.0.113.7, 10.0.0.2"]) == "203.0.113.7", "repeated headers join in order")
        #expect(resolve("fd00::1", ["2001:db8::1, fd00::2"]) == "2001:db8::1")
        #expect(resolve("10.0.0.1", ["[2001:db8::0001]:443"]) == "2001:db8::1", "bracketed with a port, canonical form")
        #expect(resolve("10.0.0.1", ["203.0.113.7:5555"]) == "203.0.113.7")
        #expect(resolve("10.0.0.1", ["::ffff:203.0.113.7"]) == "203.0.113.7")
        #expect(resolve("10.0.0.1", ["10.0.0.9, 10.0.0.3"]) == "10.0.0.9", "every hop trusted: the leftmost")
        // Garbage ends the walk at the last hop that could be verified.
        #expect(resolve("10.0.0.1", ["203.0.113.7, unknown"]) == "10.0.0.1")
        #expect(resolve("10.0.0.1", ["unknown, 10.0.0.4"]) == "10.0.0.4")
        #expect(resolve("10.0.0.1", []) == "10.0.0.1")
    }

    @Test("X-Forwarded-For is ignored from a peer that is not a trusted proxy, and without any trusted proxy")
    func untrustedPeerIgnored() {
        #expect(ClientAddress.resolve(peer: "198.51.100.1", forwardedFor: ["203.0.113.7"], trusted: proxies) == "198.51.100.1")
        #expect(ClientAddress.resolve(peer: "10.0.0.1", forwardedFor: ["203.0.113.7"], trusted: []) == "10.0.0.1")
    }

    @Test("the peer's IPv4 address is written as inet_ntop writes it, for every octet value in every position")
    func dottedQuadMatchesInetNtop() {
        for octet in 0...255 {
            let value = UInt8(octet)
            for octets in [[value, 0, 0, 1], [127, value, 0, 1], [10, 255, value, 9], [192, 168, 4, value], [value, value, value, value]] {
                var address = in_addr()
                withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: octets) }
                var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                let written = inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil
                #expect(written)
                #expect(MHDInfo.dottedQuad(octets) == String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
    }
}
