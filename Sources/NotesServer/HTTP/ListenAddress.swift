import Foundation

/// A parsed listening address: an IPv4 or IPv6 literal plus a port, ready to hand to `bind`.
///
/// Only literals are accepted (plus `localhost` as `127.0.0.1`) so that starting never depends on
/// DNS and the address the server prints is exactly the one it binds.
struct ListenAddress: Sendable {
    /// The host as given (brackets removed), for messages.
    let host: String
    /// The requested port; 0 asks the kernel for a free one.
    let port: UInt16
    /// Whether this is an IPv6 address (the server then runs dual-stack).
    let isIPv6: Bool
    private let storage: sockaddr_storage
    private let length: socklen_t

    /// Parses `host`; throws `.invalidAddress` for names and malformed literals.
    init(host rawHost: String, port: UInt16) throws(HTTPServerError) {
        var host = rawHost
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        if host == "localhost" { host = "127.0.0.1" }
        self.host = host
        self.port = port
        var ipv4 = sockaddr_in()
        var ipv6 = sockaddr_in6()
        if inet_pton(AF_INET, host, &ipv4.sin_addr) == 1 {
            ipv4.sin_family = sa_family_t(AF_INET)
            ipv4.sin_port = port.bigEndian
            (storage, length) = Self.stored(ipv4)
            isIPv6 = false
        } else if inet_pton(AF_INET6, host, &ipv6.sin6_addr) == 1 {
            ipv6.sin6_family = sa_family_t(AF_INET6)
            ipv6.sin6_port = port.bigEndian
            (storage, length) = Self.stored(ipv6)
            isIPv6 = true
        } else {
            throw HTTPServerError(
                .invalidAddress,
                "cannot listen on \(rawHost):\(port): not an IPv4 or IPv6 address (use e.g. 127.0.0.1 or ::1)"
            )
        }
    }

    /// A concrete socket address copied into generic storage, with its length.
    private static func stored<Address>(_ address: Address) -> (sockaddr_storage, socklen_t) {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            withUnsafeBytes(of: address) { target.copyMemory(from: $0) }
        }
        return (storage, socklen_t(MemoryLayout<Address>.size))
    }

    /// `host:port`, with brackets around IPv6 hosts, as users type it.
    var display: String { display(port: port) }

    /// The display form with another port (the one actually bound when `port` was 0).
    func display(port: UInt16) -> String {
        isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// A heap copy of the socket address; the caller owns it and must deallocate it.
    ///
    /// libmicrohttpd reads it while starting, so it must stay valid until `MHD_start_daemon` returns.
    func makeSockaddrCopy() -> UnsafeMutableRawPointer {
        let pointer = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<sockaddr_storage>.size,
            alignment: MemoryLayout<sockaddr_storage>.alignment
        )
        withUnsafeBytes(of: storage) { pointer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return pointer
    }

    /// Tries to bind a throwaway socket the way libmicrohttpd does and returns `errno` on failure.
    ///
    /// libmicrohttpd reports a failed start only as NULL, without the reason; repeating the bind
    /// recovers the reason (address in use, permission denied) for the error message.
    func probeBindError() -> Int32? {
        let family = isIPv6 ? AF_INET6 : AF_INET
        #if canImport(Glibc)
        let socketType = Int32(SOCK_STREAM.rawValue)
        #else
        let socketType = SOCK_STREAM
        #endif
        let fd = socket(family, socketType, 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let result = withUnsafeBytes(of: storage) { bytes in
            bind(fd, bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
        return result == 0 ? nil : errno
    }
}
