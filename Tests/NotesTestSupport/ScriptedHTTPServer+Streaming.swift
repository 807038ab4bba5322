import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Answers that never end or never hurry, for tests that the client bounds what it reads and
/// how long it waits. Each stops by itself once the client has gone (a send fails), or after
/// `maxDuration` at the latest, so no test leaves a thread writing forever.
extension ScriptedHTTPServer.Reply {
    /// A `200` with a chunked body that goes on until the client hangs up.
    public static func endlessChunkedBody(maxDuration: Duration = .seconds(120)) -> Self {
        .raw { socket in
            let head = "HTTP/1.1 200 Scripted\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            guard HTTPWire.sendAll(Data(head.utf8), to: socket) else { return }
            let payload = Data(repeating: UInt8(ascii: " "), count: 64 * 1024)
            var chunk = Data((String(payload.count, radix: 16) + "\r\n").utf8)
            chunk.append(payload)
            chunk.append(Data("\r\n".utf8))
            let end = ContinuousClock.now + maxDuration
            while ContinuousClock.now < end, HTTPWire.sendAll(chunk, to: socket) {}
        }
    }

    /// A `200` announcing `announcedLength` bytes of body, then sending `byte` every `interval`
    /// (none at all when `interval` is nil: a server that stalls after its headers).
    public static func trickle(announcedLength: Int, every interval: Duration?, maxDuration: Duration = .seconds(120)) -> Self {
        .raw { socket in
            let head = "HTTP/1.1 200 Scripted\r\nContent-Type: application/json\r\nContent-Length: \(announcedLength)\r\nConnection: close\r\n\r\n"
            guard HTTPWire.sendAll(Data(head.utf8), to: socket) else { return }
            let end = ContinuousClock.now + maxDuration
            var sent = 0
            while ContinuousClock.now < end, sent < announcedLength {
                guard let interval else {
                    // Stalled: wait for the client to give up (recv sees its close), sending nothing.
                    var byte: UInt8 = 0
                    if recv(socket, &byte, 1, 0) == 0 { return }
                    continue
                }
                Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
                guard HTTPWire.sendAll(Data(" ".utf8), to: socket) else { return }
                sent += 1
            }
        }
    }

    /// A `200` announcing `announcedLength` bytes of body and sending the first `sentBytes` of
    /// them at once, then nothing more: a server that stalls mid-body.
    public static func stallMidBody(announcedLength: Int, sentBytes: Int, maxDuration: Duration = .seconds(120)) -> Self {
        .raw { socket in
            var answer = Data("HTTP/1.1 200 Scripted\r\nContent-Type: application/octet-stream\r\nContent-Length: \(announcedLength)\r\nConnection: close\r\n\r\n".utf8)
            answer.append(Data(repeating: UInt8(ascii: "x"), count: sentBytes))
            guard HTTPWire.sendAll(answer, to: socket) else { return }
            // Silent until the client gives up (recv sees its close) or the time is up.
            let end = ContinuousClock.now + maxDuration
            var byte: UInt8 = 0
            while ContinuousClock.now < end, recv(socket, &byte, 1, 0) != 0 {}
        }
    }
}
