import Foundation
@testable import NotesServer

/// A response read off a raw socket.
struct RawResponse: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
}

enum RawHTTPError: Error {
    case socket(Int32)
    case noResponse(String)
}

/// A deliberately dumb HTTP/1.1 client over POSIX sockets, for what URLSession cannot express:
/// oversized headers, a Content-Length with no body behind it, hand-made chunked uploads.
enum RawHTTP {
    /// Sends `request` verbatim on a new connection and reads one response.
    static func exchange(port: UInt16, ipv6: Bool = false, _ request: String, readBody: Bool = true) async throws -> RawResponse {
        let bytes = Array(request.utf8)
        return try await offPool { try exchangeBlocking(port: port, ipv6: ipv6, request: bytes, readBody: readBody) }
    }

    /// Whether a TCP connection to the port is accepted at all.
    static func canConnect(port: UInt16) async throws -> Bool {
        try await offPool {
            let fd = try connectedSocket(port: port, ipv6: false)
            close(fd)
            return true
        }
    }

    /// Whether this machine can bind a TCP socket on `::1` (containers without IPv6 cannot).
    static let ipv6LoopbackAvailable: Bool = {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
            }
        }
    }()

    private static func connectedSocket(port: UInt16, ipv6: Bool) throws -> Int32 {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTPError.socket(errno) }
        // Bound every wait so a broken server fails the test instead of hanging it.
        // Generous: it only matters when a test fails, and a loaded CI box can be slow.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_loopback
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw RawHTTPError.socket(code)
        }
        return fd
    }

    private static func exchangeBlocking(port: UInt16, ipv6: Bool, request: [UInt8], readBody: Bool) throws -> RawResponse {
        let fd = try connectedSocket(port: port, ipv6: ipv6)
        defer { close(fd) }
        var sent = 0
        while sent < request.count {
            // The server may answer and close early (413, 431): stop sending, still read the answer.
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Int?
        while true {
            if let end = headerEnd ?? findHeaderEnd(received) {
                headerEnd = end
                let head = parseHead(received[..<end])
                let length = Int(head.headers["Content-Length"] ?? "") ?? 0
                if !readBody || received.count - (end + 4) >= length {
                    let body = readBody ? Array(received[(end + 4)..<(end + 4 + length)]) : []
                    return RawResponse(status: head.status, headers: head.headers, body: body)
                }
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received.append(contentsOf: buffer[0..<n])
        }
        throw RawHTTPError.noResponse(String(decoding: received, as: UTF8.self))
    }

    private static func findHeaderEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) -> (status: Int, headers: HTTPHeaders) {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        let status = statusParts.count > 1 ? Int(statusParts[1]) ?? 0 : 0
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.add(name: String(line[..<colon]), value: value)
        }
        return (status, headers)
    }
}
