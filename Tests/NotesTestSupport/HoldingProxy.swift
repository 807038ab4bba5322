import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback HTTP proxy in front of a real server that passes every request on and hands back
/// the server's answer, except that it holds back the answer to a request `hold` picks until
/// `release()`. The server has done that request's work; the client is left waiting for the
/// answer. A kill test then knows its victim was mid-conversation, however slowly the test
/// noticed, instead of racing a fast client.
public final class HoldingProxy: Sendable {
    private let front: ScriptedHTTPServer
    private let gate = Gate()

    /// `http://127.0.0.1:PORT` of the proxy.
    public var baseURL: URL { URL(string: front.baseURL)! }

    /// Whether an answer is being held back now.
    public var isHolding: Bool { gate.held.load(ordering: .acquiring) > 0 }

    /// Proxies to `127.0.0.1:upstreamPort`; `hold` is asked once per request, in arrival order.
    /// `answering` may answer a request itself instead (nil: pass it on), as a server of
    /// another version would.
    public init(upstreamPort: Int, hold: @escaping @Sendable (ScriptedHTTPServer.Request) -> Bool = { _ in false },
                answering: @escaping @Sendable (ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Reply? = { _ in nil }) throws {
        let gate = self.gate
        front = try ScriptedHTTPServer { request in
            if let reply = answering(request) { return reply }
            return .raw { socket in
                guard let answer = HTTPWire.forward(request, toPort: upstreamPort) else { return }
                if hold(request) && !gate.waitForRelease() { return }
                _ = HTTPWire.sendAll(answer, to: socket)
            }
        }
    }

    /// Lets every answer held now go on (to a client that may be gone), or with `dropping`
    /// closes their connections unanswered, as a server that died after doing the work would;
    /// `hold` still decides for later requests.
    public func release(dropping: Bool = false) {
        gate.dropping.store(dropping, ordering: .releasing)
        gate.releases.add(1, ordering: .releasing)
    }

    public func stop() {
        release()
        front.stop()
    }

    /// Where held answers wait.
    private final class Gate: Sendable {
        let held = Atomic<Int>(0)
        /// Bumped by each release; a held answer waits for the count it saw to change.
        let releases = Atomic<Int>(0)
        /// Whether the answers let go by the latest release are dropped instead of sent.
        let dropping = Atomic<Bool>(false)

        /// Waits for the next release (at most a minute, so a test that forgets to release
        /// cannot hang the run); false when the answer is to be dropped.
        func waitForRelease() -> Bool {
            let generation = releases.load(ordering: .acquiring)
            held.add(1, ordering: .releasing)
            defer { held.subtract(1, ordering: .releasing) }
            let deadline = Date().addingTimeInterval(60)
            while releases.load(ordering: .acquiring) == generation && Date() < deadline { usleep(2_000) }
            return !dropping.load(ordering: .acquiring)
        }
    }
}

extension HTTPWire {
    /// Sends `request` to `127.0.0.1:port` with `Connection: close` and returns the raw answer
    /// (head and body, as the server wrote them), or nil when the server could not be reached.
    static func forward(_ request: ScriptedHTTPServer.Request, toPort port: Int) -> Data? {
        guard let fd = connectLoopback(port: port) else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let target = request.query.isEmpty ? request.path : request.path + "?" + request.query
        var head = "\(request.method) \(target) HTTP/1.1\r\n"
        let dropped: Set<String> = ["connection", "content-length", "expect", "transfer-encoding"]
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) where !dropped.contains(name) {
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(request.body.count)\r\nConnection: close\r\n\r\n"
        var bytes = Data(head.utf8)
        bytes.append(request.body)
        guard sendAll(bytes, to: fd) else { return nil }
        var answer = Data()
        while let chunk = receive(fd) { answer.append(chunk) }
        return answer.isEmpty ? nil : answer
    }

    /// A socket connected to `127.0.0.1:port` (the caller closes it), or nil.
    static func connectLoopback(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(fd)
            return nil
        }
        return fd
    }
}
