import Foundation
import Synchronization
import Testing
@testable import NotesServer

/// Collects the server's log lines so tests can inspect them.
final class LogSink: Sendable {
    private let storage = Mutex<[String]>([])

    var lines: [String] { storage.withLock { $0 } }

    func append(_ line: String) {
        storage.withLock { $0.append(line) }
    }

    /// Waits (polling, bounded) until some line satisfies `predicate`; log lines are written on
    /// completion, which can land just after the client has read the response.
    func waitForLine(timeout: Duration = .seconds(30), where predicate: (String) -> Bool) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = lines.first(where: predicate) { return line }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return lines.first(where: predicate)
    }
}

/// A one-shot gate async code can wait on; opening it releases every waiter.
final class Latch: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let alreadyOpen = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if alreadyOpen { continuation.resume() }
        }
    }
}

/// Counts calls from any thread.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    var count: Int { value.load(ordering: .relaxed) }
    func increment() { value.add(1, ordering: .relaxed) }
}

/// Runs blocking work (sockets, `shutdown()`) on a thread of its own, off Swift's small cooperative
/// pool, so `.later` work in the server under test can still run. Not GCD: on Linux its global
/// queue grows past the core count only about once a second, which serialises blocked sockets.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(with: Result { try work() })
        }.start()
    }
}

/// A server on 127.0.0.1 with a free port, its log, and a way to build URLs.
struct RunningServer: Sendable {
    let server: HTTPServer
    let port: UInt16
    let log: LogSink

    /// Starts a fresh server; every test gets its own, so tests can run in parallel.
    static func start(
        _ configure: (inout HTTPServer.Configuration) -> Void = { _ in },
        responder: @escaping @Sendable (HTTPRequest) -> HTTPOutcome
    ) throws -> RunningServer {
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configure(&configuration)
        let log = LogSink()
        let server = HTTPServer(configuration: configuration, responder: ClosureResponder(responder), log: { log.append($0) })
        let port = try server.start()
        return RunningServer(server: server, port: port, log: log)
    }

    func url(_ pathAndQuery: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)")!
    }

    /// Stops the server without blocking the cooperative pool.
    func stop() async throws {
        let server = self.server
        try await offPool { server.shutdown() }
    }
}

/// The echo responder's answer: what the server handed to the responder.
struct Echo: Codable, Sendable {
    let method: String
    let path: String
    let query: [String: String]
    let body: String
    let test: String?
    let remote: String
}

/// Echoes the request as JSON; paths under `/later` answer through `.later`.
@Sendable func echoResponder(_ request: HTTPRequest) -> HTTPOutcome {
    let echo = Echo(
        method: request.method,
        path: request.path,
        query: request.query,
        body: String(decoding: request.body, as: UTF8.self),
        test: request.headers["x-test"],
        remote: request.remoteAddress
    )
    if request.path.hasPrefix("/later") {
        return .later {
            await Task.yield()
            return .json(echo)
        }
    }
    return .now(.json(echo))
}
