import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The little HTTP/1.1 that `ScriptedHTTPServer` speaks: one request in (head plus a
/// `Content-Length` body; the client sends nothing fancier to it), one response out.
enum HTTPWire {
    /// Reads one request from `socket`, or nil when the peer closed or sent something unreadable.
    static func readRequest(from socket: Int32) -> ScriptedHTTPServer.Request? {
        var received = Data()
        let separator = Data("\r\n\r\n".utf8)
        var headEnd: Range<Data.Index>?
        while headEnd == nil {
            guard let chunk = receive(socket) else { return nil }
            received.append(chunk)
            headEnd = received.range(of: separator)
        }
        guard let headEnd else { return nil }
        let head = String(decoding: received[..<headEnd.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(received[headEnd.upperBound...])
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        while body.count < length {
            guard let chunk = receive(socket) else { return nil }
            body.append(chunk)
        }
        let target = String(requestLine[1])
        let question = target.firstIndex(of: "?")
        return ScriptedHTTPServer.Request(
            method: String(requestLine[0]),
            path: String(target[..<(question ?? target.endIndex)]),
            query: question.map { String(target[target.index(after: $0)...]) } ?? "",
            headers: headers, body: body, receivedAt: Date())
    }

    /// Writes a whole response with `Content-Length` counted in bytes and `Connection: close`.
    static func write(status: Int, headers: [String: String], body: Data, to socket: Int32) {
        var head = "HTTP/1.1 \(status) Scripted\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        var bytes = Data(head.utf8)
        bytes.append(body)
        _ = sendAll(bytes, to: socket)
    }

    /// Writes all of `bytes`; false once the peer is gone.
    static func sendAll(_ bytes: Data, to socket: Int32) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let sent = send(socket, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    /// The next bytes from `socket`, or nil at end of stream, on error or after the receive timeout.
    static func receive(_ socket: Int32) -> Data? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            return Data(buffer[..<count])
        }
    }
}
