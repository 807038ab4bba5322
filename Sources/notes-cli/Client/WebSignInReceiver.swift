import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The loopback end of a browser sign-in (RFC 8252 §7.3): listens on 127.0.0.1 on a port the
/// system picks, and waits for the browser to be redirected to it with the sign-in's outcome.
///
/// The one owner of its listening socket. `@unchecked Sendable`: the socket is only used by the
/// one thread `waitForRedirect` starts, and closed in `deinit` after that thread is done.
final class WebSignInReceiver: @unchecked Sendable {
    /// The port it listens on.
    let port: Int
    private let listener: Int32

    /// `http://127.0.0.1:PORT/callback`.
    var redirectURI: String { "http://127.0.0.1:\(port)/callback" }

    /// Opens the listening socket.
    /// - Throws: `SignInError.noLoopbackPort` when no loopback port can be had.
    init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw SignInError.noLoopbackPort(listening: false) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, listen(descriptor, 8) == 0, named == 0 else {
            close(descriptor)
            throw SignInError.noLoopbackPort(listening: true)
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(listener)
    }

    /// The query parameters of the first request to `/callback`, answered with a page saying
    /// whether sign-in worked (`page` decides from the parameters). Other requests (a browser's
    /// `/favicon.ico`) get 404 and the wait goes on.
    /// - Throws: `SignInError.browserTimedOut` when nothing comes within `timeout`.
    func waitForRedirect(timeout: Duration, page: @escaping @Sendable ([String: String]) -> String) async throws -> [String: String] {
        let deadline = ContinuousClock.now + timeout
        let listener = self.listener
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                while true {
                    let left = deadline - ContinuousClock.now
                    guard left > .zero else {
                        continuation.resume(throwing: SignInError.browserTimedOut(minutes: Int(timeout.components.seconds / 60)))
                        return
                    }
                    var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                    let ready = poll(&poller, 1, Int32(min(Int64(1000), left.components.seconds * 1000 + 1)))
                    guard ready > 0 else { continue }
                    let connection = accept(listener, nil, nil)
                    guard connection >= 0 else { continue }
                    if let parameters = Self.serve(connection, page: page) {
                        continuation.resume(returning: parameters)
                        return
                    }
                }
            }
            thread.start()
        }
    }

    /// Reads one request head from `connection` and answers it; the parameters when it was the
    /// redirect, else `nil`.
    private static func serve(_ connection: Int32, page: ([String: String]) -> String) -> [String: String]? {
        defer { close(connection) }
        // A browser sends its request at once; whoever trickles it is not waited for long.
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < 16 * 1024, !head.containsHeadEnd {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { break }
            head += buffer.prefix(count)
        }
        let requestLine = String(decoding: head.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET" else {
            respond(connection, status: "400 Bad Request", body: "Bad request.")
            return nil
        }
        let target = parts[1]
        let path = target.prefix { $0 != "?" }
        guard path == "/callback" else {
            respond(connection, status: "404 Not Found", body: "Not found.")
            return nil
        }
        let parameters = parseQuery(String(target.dropFirst(path.count + 1)))
        respond(connection, status: "200 OK", body: page(parameters))
        return parameters
    }

    private static func respond(_ connection: Int32, status: String, body: String) {
        let html = "<!doctype html><meta charset=\"utf-8\"><title>Notes</title><p>\(body)</p>"
        let bytes = Array(html.utf8)
        let message = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(bytes.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
        let all = Array(message.utf8) + bytes
        _ = all.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
    }

    /// `a=1&b=x%20y` as a dictionary (form decoding: `+` is a space); the last of a repeated name wins.
    static func parseQuery(_ query: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            result[decode(halves[0])] = halves.count > 1 ? decode(halves[1]) : ""
        }
        return result
    }

    /// `text` safe inside HTML.
    static func escapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

private extension [UInt8] {
    var containsHeadEnd: Bool {
        count >= 4 && indices.dropLast(3).contains { self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10 }
    }
}
