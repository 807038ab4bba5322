import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny real HTTP/1.1 server on a loopback socket that answers each request as the test
/// scripts it: for the behaviour only a misbehaving server shows (5xx, 429 with `Retry-After`,
/// a dropped connection, a hostile changes feed), so the client's real URLSession transport is
/// what the test exercises, over a real socket.
///
/// Each connection gets one answer and is closed (`Connection: close`), so requests never queue
/// behind a kept-alive connection. Blocking socket calls run on dedicated `Thread`s: the GCD pool
/// grows slowly on a 2-core machine and must not be parked in `accept` or `recv`.
public final class ScriptedHTTPServer: Sendable {
    /// One request as it arrived.
    public struct Request: Sendable {
        public var method: String
        /// The path without the query, such as `/v1/me`.
        public var path: String
        /// The query string after `?`, or "".
        public var query: String
        /// Header names lowercased.
        public var headers: [String: String]
        public var body: Data
        public var receivedAt: Date
    }

    /// How to answer one request.
    public enum Reply: Sendable {
        case respond(status: Int, headers: [String: String], body: Data)
        /// Reset the connection (RST) after reading the request, without answering.
        case dropConnection
        /// Writes whatever it likes to the connection's socket, which is closed when it returns
        /// (see `ScriptedHTTPServer+Streaming.swift`: endless, trickling and stalled answers).
        case raw(@Sendable (_ socket: Int32) -> Void)

        /// A JSON answer.
        public static func json(_ status: Int, _ json: String, headers: [String: String] = [:]) -> Reply {
            .respond(status: status, headers: headers.merging(["Content-Type": "application/json"]) { old, _ in old },
                     body: Data(json.utf8))
        }

        /// A Notes API error body (`{"error":{"code":…,"message":…}}`).
        public static func error(_ status: Int, _ code: String, _ message: String, headers: [String: String] = [:]) -> Reply {
            json(status, #"{"error":{"code":"\#(code)","message":"\#(message)"}}"#, headers: headers)
        }
    }

    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    private let recorded = Mutex<[Request]>([])
    private let handler: @Sendable (Request) -> Reply

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request answered so far, in arrival order.
    public var requests: [Request] { recorded.withLock { $0 } }

    /// Listens on a free loopback port and answers every request with `handler`.
    public init(_ handler: @escaping @Sendable (Request) -> Reply) throws {
        BrokenPipes.ignore()
        self.handler = handler
        (listener, port) = try Self.openListener()
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "ScriptedHTTPServer accept"
        thread.start()
    }

    /// Answers with `replies` in order, then with `fallback` for every later request.
    public convenience init(replies: [Reply], then fallback: Reply) throws {
        let remaining = Mutex(replies[...])
        try self.init { _ in remaining.withLock { $0.popFirst() } ?? fallback }
    }

    /// Stops accepting; the accept thread closes the socket within one poll interval.
    public func stop() {
        stopped.store(true, ordering: .releasing)
    }

    private static func openListener() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ScriptedHTTPServerError("socket", errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw ScriptedHTTPServerError("bind", code)
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    private func acceptLoop() {
        defer { close(listener) }
        while !stopped.load(ordering: .acquiring) {
            var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            let thread = Thread { [self] in serve(connection) }
            thread.name = "ScriptedHTTPServer connection"
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        // A client that stalls must not hang the test forever.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let request = HTTPWire.readRequest(from: connection) else { return }
        recorded.withLock { $0.append(request) }
        switch handler(request) {
        case .dropConnection:
            // Linger 0 makes close() send a reset, as a crashed server or a broken proxy would.
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        case .respond(let status, let headers, let body):
            HTTPWire.write(status: status, headers: headers, body: body, to: connection)
        case .raw(let write):
            write(connection)
        }
    }
}

/// A socket call that failed while setting up the scripted server.
public struct ScriptedHTTPServerError: Error, CustomStringConvertible {
    public var description: String

    init(_ call: String, _ code: Int32) {
        description = "\(call): \(String(cString: strerror(code)))"
    }
}
