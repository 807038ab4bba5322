import Foundation
import NotesTestSupport
import Synchronization
import Testing
@testable import NotesServer

#if canImport(Glibc)
import Glibc
#endif

/// The server's stderr log, written in batches: every line arrives, whole, in order, stamped;
/// a quiet server's line arrives without a stop; `close()` loses nothing.
@Suite("Log: batched stderr writer")
struct BufferedLogTests {
    /// A pipe whose read end is drained on a thread of its own into `text`.
    private final class PipeReader: Sendable {
        let writeEnd: Int32
        private let readEnd: Int32
        private let received = Mutex<[UInt8]>([])
        private let finished = DispatchSemaphore(value: 0)

        init() throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            readEnd = ends[0]
            writeEnd = ends[1]
            Thread { [self] in
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(readEnd, &buffer, buffer.count)
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    received.withLock { $0.append(contentsOf: buffer[..<count]) }
                }
                finished.signal()
            }.start()
        }

        var text: String { String(decoding: received.withLock { $0 }, as: UTF8.self) }

        /// Closes the write end and waits until everything written was read.
        func finish() -> String {
            close(writeEnd)
            finished.wait()
            close(readEnd)
            return text
        }
    }

    @Test("a line on a quiet server reaches the descriptor without a flush, stamped in RFC 3339 UTC")
    func quietLineArrives() async throws {
        let reader = try PipeReader()
        let log = BufferedLog(descriptor: reader.writeEnd)
        log.append("req=00000000000000ab GET /v1/notes/x 200 0.01ms")
        #expect(try await waitUntil { reader.text.hasSuffix("\n") })
        log.close()
        let lines = reader.finish().split(separator: "\n")
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z req=00000000000000ab GET \/v1\/notes\/x 200 0\.01ms/) != nil,
                "\(line)")
    }

    @Test("close() writes every kept line, in order, however many threads logged them")
    func closeLosesNothing() async throws {
        let reader = try PipeReader()
        // A window far longer than the test: only close() can have written the lines.
        let log = BufferedLog(descriptor: reader.writeEnd, window: .seconds(3600))
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<2_000 { log.append("thread \(thread) line \(index)") }
        }
        log.close()
        log.append("after close")
        let lines = reader.finish().split(separator: "\n")
        #expect(lines.count == 8_001)
        #expect(lines.last?.hasSuffix(" after close") == true)
        for thread in 0..<4 {
            let own = lines.filter { $0.contains(" thread \(thread) line ") }.map { $0.split(separator: " ").last.map(String.init) ?? "" }
            #expect(own == (0..<2_000).map(String.init), "thread \(thread)'s lines are all there, in the order it logged them")
        }
    }

    @Test("past the back-pressure size the logging thread writes the batch itself")
    func backPressureWrites() async throws {
        let reader = try PipeReader()
        let log = BufferedLog(descriptor: reader.writeEnd, window: .seconds(3600), backPressureBytes: 1024)
        for index in 0..<100 { log.append("line \(index) " + String(repeating: "x", count: 40)) }
        // The writer sleeps for an hour: what arrived was written by append itself.
        #expect(try await waitUntil { reader.text.contains(" line 10 ") })
        log.close()
        #expect(reader.finish().split(separator: "\n").count == 100)
    }
}
