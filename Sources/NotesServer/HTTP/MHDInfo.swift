import CMicroHTTPD
import Foundation

/// Calls libmicrohttpd's two info getters, which are C-variadic and therefore not imported.
///
/// `MHD_get_daemon_info` and `MHD_get_connection_info` take `(handle, info_type, ...)`; for the
/// queries used here no variadic argument is read, so calling them through a fixed two-argument
/// C prototype passes exactly the arguments the function reads, in the same registers, on every
/// ABI Swift supports (the variadic tail is empty). The symbols are resolved once with `dlsym`.
/// A `static inline` wrapper in the CMicroHTTPD shim would be the tidier long-term home.
enum MHDInfo {
    private typealias InfoFunction = @convention(c) (OpaquePointer?, UInt32) -> UnsafeRawPointer?

    // Resolved once, lazily and thread-safely (Swift's static initialisation); C function
    // pointers carry no state, so Swift treats them as Sendable.
    private static let daemonInfo: InfoFunction? = resolve("MHD_get_daemon_info")
    private static let connectionInfo: InfoFunction? = resolve("MHD_get_connection_info")

    private static func resolve(_ name: String) -> InfoFunction? {
        // dlopen(nil) searches the executable and every library it links, libmicrohttpd included.
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, name) else {
            return nil
        }
        return unsafeBitCast(symbol, to: InfoFunction.self)
    }

    /// The port the daemon actually listens on (the kernel's choice when 0 was requested).
    static func boundPort(of daemon: OpaquePointer) -> UInt16? {
        let query = MHD_DaemonInfoType.DAEMON_INFO_BIND_PORT.rawValue
        guard let function = daemonInfo, let info = function(daemon, query) else { return nil }
        let port = info.load(as: UInt16.self)
        return port == 0 ? nil : port
    }

    /// The client's IP address as text, or `"unknown"` if libmicrohttpd cannot tell.
    static func clientAddress(of connection: OpaquePointer) -> String {
        let query = MHD_ConnectionInfoType.CONNECTION_INFO_CLIENT_ADDRESS.rawValue
        guard let function = connectionInfo,
              let info = function(connection, query),
              let address = info.load(as: UnsafeMutablePointer<sockaddr>?.self)
        else { return "unknown" }
        return format(address)
    }

    /// Renders an IPv4 or IPv6 socket address; IPv4-mapped IPv6 (`::ffff:a.b.c.d`) becomes `a.b.c.d`.
    private static func format(_ address: UnsafeMutablePointer<sockaddr>) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let ok = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                inet_ntop(AF_INET, &ipv4.pointee.sin_addr, &text, socklen_t(text.count)) != nil
            }
            return ok ? string(from: text) : "unknown"
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                var raw = ipv6.pointee.sin6_addr
                let bytes = withUnsafeBytes(of: &raw) { Array($0) }
                let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
                if Array(bytes[0..<12]) == mappedPrefix {
                    return bytes[12..<16].map(String.init).joined(separator: ".")
                }
                guard inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count)) != nil else { return "unknown" }
                return string(from: text)
            }
        default:
            return "unknown"
        }
    }

    private static func string(from text: [CChar]) -> String {
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
