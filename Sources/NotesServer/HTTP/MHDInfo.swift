import CMicroHTTPD
import Foundation

/// libmicrohttpd's connection and daemon facts, read through the shim's `static inline`
/// wrappers (the C getters are variadic, which Swift does not import).
enum MHDInfo {
    /// The port the daemon actually listens on (the kernel's choice when 0 was requested).
    static func boundPort(of daemon: OpaquePointer) -> UInt16? {
        let port = notes_mhd_bound_port(daemon)
        return port == 0 ? nil : port
    }

    /// The client's IP address as text, or `"unknown"` if libmicrohttpd cannot tell.
    static func clientAddress(of connection: OpaquePointer) -> String {
        guard let address = notes_mhd_client_address(connection) else { return "unknown" }
        return format(UnsafeMutablePointer(mutating: address))
    }

    /// Renders an IPv4 or IPv6 socket address; IPv4-mapped IPv6 (`::ffff:a.b.c.d`) becomes `a.b.c.d`.
    private static func format(_ address: UnsafeMutablePointer<sockaddr>) -> String {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                withUnsafeBytes(of: ipv4.pointee.sin_addr) { dottedQuad($0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                var raw = ipv6.pointee.sin6_addr
                let bytes = withUnsafeBytes(of: &raw) { Array($0) }
                let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
                if Array(bytes[0..<12]) == mappedPrefix {
                    return dottedQuad(bytes[12..<16])
                }
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                guard inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count)) != nil else { return "unknown" }
                return string(from: text)
            }
        default:
            return "unknown"
        }
    }

    /// Four octets as `a.b.c.d`, without `inet_ntop` (which formats through `sprintf`) and
    /// without allocating: at most 15 bytes, which Swift keeps inline. Runs on every request.
    static func dottedQuad(_ octets: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: 15) { buffer in
            var count = 0
            for (index, octet) in octets.prefix(4).enumerated() {
                if index > 0 {
                    buffer[count] = UInt8(ascii: ".")
                    count += 1
                }
                if octet >= 100 {
                    buffer[count] = UInt8(ascii: "0") + octet / 100
                    count += 1
                }
                if octet >= 10 {
                    buffer[count] = UInt8(ascii: "0") + octet / 10 % 10
                    count += 1
                }
                buffer[count] = UInt8(ascii: "0") + octet % 10
                count += 1
            }
            return count
        }
    }

    private static func string(from text: [CChar]) -> String {
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
