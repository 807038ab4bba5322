import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP proxy on a loopback port, as `http_proxy` and `https_proxy` name one: a plain
/// request in absolute form (`GET http://127.0.0.1:PORT/path`) is passed on to its target, and
/// `CONNECT 127.0.0.1:PORT` opens a tunnel to it (for TLS, which the proxy cannot read). It
/// reaches only 127.0.0.1 and refuses any other target with 403. Each request it saw is recorded,
/// so a test knows what went through it.
public final class LoopbackProxy: Sendable {
    private let front: ScriptedHTTPServer

    /// `http://127.0.0.1:PORT` of the proxy, as a proxy variable takes it.
    public var url: String { front.baseURL }

    /// What reached the proxy: `CONNECT 127.0.0.1:PORT`, or `GET http://127.0.0.1:PORT/path`.
    public var seen: [String] {
        front.requests.map { request in
            "\(request.method) \(request.path)" + (request.query.isEmpty ? "" : "?" + request.query)
        }
    }

    public init() throws {
        front = try ScriptedHTTPServer { request in
            if request.method == "CONNECT" {
                guard let port = Self.loopbackPort(request.path) else { return .respond(status: 403, headers: [:], body: Data()) }
                return .raw { socket in Self.tunnel(socket, toPort: port) }
            }
            let prefix = "http://127.0.0.1:"
            guard request.path.hasPrefix(prefix) else { return .respond(status: 403, headers: [:], body: Data()) }
            let rest = request.path.dropFirst(prefix.count)
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            guard let port = Int(rest[..<slash]) else { return .respond(status: 400, headers: [:], body: Data()) }
            var onward = request
            onward.path = rest[slash...].isEmpty ? "/" : String(rest[slash...])
            let passed = onward
            return .raw { socket in
                guard let answer = HTTPWire.forward(passed, toPort: port) else { return }
                _ = HTTPWire.sendAll(answer, to: socket)
            }
        }
    }

    public func stop() { front.stop() }

    /// The port of a `127.0.0.1:PORT` CONNECT target; nil for any other host.
    private static func loopbackPort(_ target: String) -> Int? {
        let prefix = "127.0.0.1:"
        guard target.hasPrefix(prefix) else { return nil }
        return Int(target.dropFirst(prefix.count))
    }

    /// Answers the CONNECT and relays bytes both ways until either side closes (or 30 s of silence).
    private static func tunnel(_ client: Int32, toPort port: Int) {
        guard let upstream = HTTPWire.connectLoopback(port: port) else {
            HTTPWire.write(status: 502, headers: [:], body: Data(), to: client)
            return
        }
        defer { close(upstream) }
        guard HTTPWire.sendAll(Data("HTTP/1.1 200 Connection established\r\n\r\n".utf8), to: client) else { return }
        var sockets = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while poll(&sockets, 2, 30_000) > 0 {
            for index in 0..<2 where sockets[index].revents != 0 {
                let count = recv(sockets[index].fd, &buffer, buffer.count, 0)
                guard count > 0, HTTPWire.sendAll(Data(buffer[..<count]), to: sockets[1 - index].fd) else { return }
            }
        }
    }
}
