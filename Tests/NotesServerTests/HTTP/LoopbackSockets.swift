import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Raw loopback sockets for hostile-traffic tests: many connections held open, bytes trickled,
/// a client bound to another loopback address (127.0.0.2) so per-address limits can be told apart.
enum LoopbackSockets {
    /// A blocking TCP socket connected to `127.0.0.1:port` from `source` (any 127.x address).
    /// Receives time out after `timeout` seconds, so a starved server fails a test, never hangs it.
    static func connect(port: Int, from source: String = "127.0.0.1", timeout: Int = 30) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTPError.socket(errno) }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = UInt16(port).bigEndian
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let connected = bound == 0 && withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
        guard connected else {
            let code = errno
            close(fd)
            throw RawHTTPError.socket(code)
        }
        return fd
    }

    /// Sends `bytes` (as much as the peer takes); false once the peer has closed or reset.
    @discardableResult
    static func send(_ bytes: [UInt8], on fd: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// Reads until the peer closes or the receive timeout passes, and returns what arrived.
    static func readAll(_ fd: Int32, upTo limit: Int = 1 << 20) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while received.count < limit {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            received.append(contentsOf: buffer[0..<n])
        }
        return received
    }

    /// The status code of the HTTP response at the start of `bytes`, or nil.
    static func status(of bytes: [UInt8]) -> Int? {
        let line = String(decoding: bytes.prefix(64), as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = line.split(separator: " ")
        return parts.count > 1 && parts[0].hasPrefix("HTTP/") ? Int(parts[1]) : nil
    }

    /// One `Connection: close` request from `source`, answered in full (status and body text).
    static func exchange(port: Int, from source: String = "127.0.0.1", _ request: String, timeout: Int = 30) throws -> (status: Int?, text: String) {
        let fd = try connect(port: port, from: source, timeout: timeout)
        defer { close(fd) }
        send(Array(request.utf8), on: fd)
        let bytes = readAll(fd)
        return (status(of: bytes), String(decoding: bytes, as: UTF8.self))
    }

    /// Raises this process's open-file limit to at least `count` (within the hard limit).
    static func allowOpenFiles(_ count: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(count) else { return }
        limit.rlim_cur = min(rlim_t(count), limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// The resident memory of process `pid` in bytes (`VmRSS` in /proc), or nil.
    static func residentBytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
        return kib * 1024
    }
}
