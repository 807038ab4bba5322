import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The server under hostile traffic, end to end against the real binary: bodies nobody
/// authenticated, connection floods, slow senders, odd framing.
@Suite("HTTP: hostile traffic, end to end")
struct HostileTrafficTests {
    @Test("anonymous sign-in bodies of many MiB with the last byte held back are refused at their headers; memory stays bounded")
    func anonymousLargeBodiesAreRefusedEarly() async throws {
        try await LiveServer.with(account: .none) { server, _ in
            let port = server.port
            let bodySize = 8 * 1024 * 1024
            let connections = 16
            // Each connection sends the headers and all of the body but its last byte, and stays open.
            let sockets = try await withThrowingTaskGroup(of: Int32.self) { group in
                for _ in 0..<connections {
                    group.addTask {
                        try await offPool {
                            let fd = try LoopbackSockets.connect(port: port, timeout: 10)
                            let head = "POST /v1/auth/login HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: \(bodySize)\r\n\r\n"
                            LoopbackSockets.send(Array(head.utf8), on: fd)
                            LoopbackSockets.send([UInt8](repeating: UInt8(ascii: "a"), count: bodySize - 1), on: fd)
                            return fd
                        }
                    }
                }
                return try await group.reduce(into: [Int32]()) { $0.append($1) }
            }
            let resident = try #require(LoopbackSockets.residentBytes(of: server.process.processIdentifier))
            let statuses = sockets.map { fd in
                defer { close(fd) }
                return LoopbackSockets.status(of: LoopbackSockets.readAll(fd))
            }
            // Held, those bodies would be 128 MiB; refused at their headers, the server stays near idle.
            #expect(resident < 96 * 1024 * 1024, "server resident: \(resident / 1_048_576) MiB")
            #expect(statuses.allSatisfy { $0 == 413 || $0 == nil }, "\(statuses)")
            let refused = try await waitUntil {
                server.log.components(separatedBy: "POST /v1/auth/login 413 ").count - 1 == connections
            }
            #expect(refused, "every sign-in body is refused with 413 (the log has one line each)")
        }
    }

    @Test("a body for a route that needs a token is answered 401 from the headers, before any of it is sent")
    func unauthenticatedBodyIsRefusedFromTheHeaders() async throws {
        try await LiveServer.with(account: .none) { server, _ in
            let port = server.port
            for (authorization, code) in [("", "unauthenticated"), ("Authorization: Bearer nat_forged\r\n", "invalid_token")] {
                let head = "PUT /v1/notes/\(NoteID()) HTTP/1.1\r\nHost: t\r\n\(authorization)If-None-Match: *\r\nContent-Length: 5000000\r\n\r\n"
                let answer = try await offPool { try LoopbackSockets.exchange(port: port, head, timeout: 20) }
                #expect(answer.status == 401, "\(answer.text.prefix(200))")
                #expect(answer.text.contains(#""code":"\#(code)""#))
            }
            let unknown = try await offPool {
                try LoopbackSockets.exchange(port: port, "POST /v1/nowhere HTTP/1.1\r\nHost: t\r\nContent-Length: 5000000\r\n\r\n", timeout: 20)
            }
            #expect(unknown.status == 404)
        }
    }

    @Test("bodies in flight share one budget: past it, 503 server_busy with Retry-After, and the budget comes back")
    func bodyBudgetIsShared() async throws {
        try await LiveServer.with(["--body-budget", String(32 * 1024 * 1024)], account: .added) { server, client in
            let token = try #require(try await client.signedIn(TestAccount.username, password: TestAccount.password).token)
            let port = server.port
            // `Expect: 100-continue` makes the server say when it has admitted the headers.
            let head = "PUT /v1/notes/\(NoteID()) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\nIf-None-Match: *\r\n"
                + "Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 20000000\r\n\r\n"
            @Sendable func open() throws -> (fd: Int32, status: Int?, text: String) {
                let fd = try LoopbackSockets.connect(port: port, timeout: 20)
                LoopbackSockets.send(Array(head.utf8), on: fd)
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                let bytes = n > 0 ? Array(buffer[0..<n]) : []
                return (fd, LoopbackSockets.status(of: bytes), String(decoding: bytes, as: UTF8.self))
            }
            let first = try await offPool { try open() }
            #expect(first.status == 100, "the first 20 MB body fits the 32 MiB budget")
            let second = try await offPool { try open() }
            close(second.fd)
            #expect(second.status == 503, "\(second.text)")
            #expect(second.text.contains(#""code":"server_busy""#))
            #expect(second.text.lowercased().contains("retry-after: "))
            close(first.fd)
            let admittedAgain = try await waitUntil {
                let again = try await offPool { try open() }
                close(again.fd)
                return again.status == 100
            }
            #expect(admittedAgain, "closing the first upload gives its share of the budget back")
        }
    }

    @Test("300 slow and 256 idle connections from one address do not keep another address from being answered")
    func floodFromOneAddressLeavesOthersServed() async throws {
        LoopbackSockets.allowOpenFiles(2048)
        try await LiveServer.with(account: .none) { server, _ in
            let port = server.port
            let idle = try await offPool { try (0..<256).map { _ in try LoopbackSockets.connect(port: port) } }
            let slow = try await offPool {
                try (0..<300).map { _ in
                    let fd = try LoopbackSockets.connect(port: port)
                    LoopbackSockets.send(Array("POST /v1/auth/login HTTP/1.1\r\nHost: t\r\n".utf8), on: fd)
                    return fd
                }
            }
            let trickling = Atomic<Bool>(true)
            let trickler = Thread {
                while trickling.load(ordering: .relaxed) {
                    for fd in slow { _ = send(fd, "x", 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                    usleep(500_000)
                }
            }
            trickler.start()
            // Liveness with a wide margin: only a starved server misses 10 s.
            let answer = await Result(catching: {
                try await offPool { try LoopbackSockets.exchange(port: port, from: "127.0.0.2", "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", timeout: 10) }
            })
            trickling.store(false, ordering: .relaxed)
            (idle + slow).forEach { close($0) }
            #expect(try answer.get().status == 200)
        }
    }

    @Test("a request trickled a byte at a time is cut at its deadline, headers or body", arguments: [
        ("GET /healthz HTTP/1.1\r\nHost: t\r\n", "X-Slow: yes\r\n"),
        ("POST /v1/auth/login HTTP/1.1\r\nHost: t\r\nContent-Length: 4000\r\n\r\n", "{"),
    ])
    func tricklingCannotExtendTheDeadline(head: String, trickle: String) async throws {
        try await LiveServer.with(["--request-timeout", "2"], account: .none) { server, _ in
            let port = server.port
            let cut = try await offPool { () -> Bool in
                let fd = try LoopbackSockets.connect(port: port)
                defer { close(fd) }
                guard LoopbackSockets.send(Array(head.utf8), on: fd) else { return false }
                // A byte every 250 ms for up to 20 s: never idle, so only an absolute deadline ends it.
                for _ in 0..<80 {
                    usleep(250_000)
                    var probe: UInt8 = 0
                    if recv(fd, &probe, 1, Int32(MSG_DONTWAIT)) == 0 { return true }
                    if !LoopbackSockets.send(Array(trickle.utf8), on: fd) { return true }
                }
                return false
            }
            #expect(cut, "the server still held the trickled request after 20 s")
        }
    }

    @Test("early refusals are JSON errors with nosniff: Transfer-Encoding, a thousand query parameters")
    func earlyRefusalsAreJSON() async throws {
        try await LiveServer.with(account: .none) { server, _ in
            let port = server.port
            let thousand = (0..<1000).map { "p\($0)=\($0)" }.joined(separator: "&")
            let cases: [(String, Int, String)] = [
                ("POST /v1/auth/login HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "not_implemented"),
                ("POST /v1/auth/login HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501, "not_implemented"),
                ("POST /v1/auth/login HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400, "invalid_transfer_encoding"),
                ("GET /healthz?\(thousand) HTTP/1.1\r\nHost: t\r\n\r\n", 414, "too_many_query_parameters"),
                ("GET /nowhere HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", 404, "not_found"),
            ]
            for (request, status, code) in cases {
                let answer = try await offPool { try LoopbackSockets.exchange(port: port, request, timeout: 20) }
                #expect(answer.status == status, "\(request.prefix(60))")
                #expect(answer.text.contains(#""code":"\#(code)""#), "\(request.prefix(60))")
                #expect(answer.text.lowercased().contains("x-content-type-options: nosniff"), "\(request.prefix(60))")
            }
            let fine = try await TestAPIClient(server).send("GET", "/healthz")
            #expect(fine.status == 200)
            #expect(fine.header("X-Content-Type-Options") == "nosniff")
        }
    }
}
