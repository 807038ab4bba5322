import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port that refuses every connection for as long as this value lives: a socket
/// bound to it that never listens. Unlike "a port that was free a moment ago", no other test's
/// server can take it meanwhile, so "nobody listens there" stays true.
public final class ClosedPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ClosedPortError(errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(descriptor)
            throw ClosedPortError(errno: code)
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}

public struct ClosedPortError: Error, CustomStringConvertible {
    public let errno: Int32
    public var description: String { "could not hold a loopback port: \(String(cString: strerror(errno)))" }
}
