import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing

/// A changes page carrying content is bounded in bytes, so a clone of large notes neither
/// balloons the server nor stalls everyone else.
@Suite("Notes API: changes pages are bounded in bytes")
struct ChangesPageBoundTests {
    /// About `bytes` of Markdown with a quote and a newline per line, so escaping is exercised.
    private static func content(_ bytes: Int, seed: Int) -> String {
        let line = "\(seed) \"" + String(repeating: "a", count: 96) + "\n"
        return String(repeating: line, count: bytes / line.utf8.count)
    }

    @Test("20 notes of 1.9 MiB come back in pages within max_page_bytes, the server stays under 128 MiB through upload and walk, /healthz is answered meanwhile")
    func largeNotesArePagedWithinTheBound() async throws {
        try await LiveServer.with { server, api in
            let limits = try await api.send("GET", "/v1/limits").decode(ServerLimits.self)
            let pageBytes = try #require(limits.maxPageBytes)
            #expect(pageBytes <= 8 * 1024 * 1024, "a few MiB")
            let noteBytes = 19 * 1024 * 1024 / 10
            #expect(noteBytes <= limits.maxNoteBytes)
            let pid = server.process.processIdentifier
            let watching = Atomic<Bool>(true)
            let peak = Atomic<Int>(0)
            let sampler = Thread {
                while watching.load(ordering: .relaxed) {
                    if let resident = LoopbackSockets.residentBytes(of: pid) { peak.max(resident, ordering: .relaxed) }
                    usleep(5_000)
                }
            }
            // Sampled from the first upload on: what the uploads leave resident counts too.
            sampler.start()
            defer { watching.store(false, ordering: .relaxed) }
            var expected: [NoteID: String] = [:]
            for group in 0..<5 {
                // Four notes a batch: few transactions, and small enough bodies not to raise the server's memory much.
                let operations = (0..<4).map { index in
                    BatchOperation(op: .put, id: NoteID(), path: "big-\(group)-\(index).md",
                                   content: Self.content(noteBytes, seed: group * 4 + index), ifNoneMatch: "*")
                }
                let response = try await api.send("POST", "/v1/batch", json: BatchRequest(operations: operations))
                let results = try response.decode(BatchResponse.self).results
                #expect(results.map(\.status) == Array(repeating: 201, count: 4))
                for operation in operations { expected[operation.id] = operation.content.map { SHA256.hex(of: $0) } }
            }

            let health = Task {
                var statuses: [Int] = []
                while watching.load(ordering: .relaxed) {
                    statuses.append(try await offPool {
                        try LoopbackSockets.exchange(port: server.port, "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", timeout: 10)
                    }.status ?? 0)
                    // Paced (not timed): a tight loop would only meet the per-client request rate.
                    try await Task.sleep(for: .milliseconds(20))
                }
                return statuses
            }

            var received: [NoteID: String] = [:]
            var pageSizes: [Int] = []
            var since = "0"
            let fetched = await Result(catching: {
                for _ in 0..<100 {
                    let response = try await api.send("GET", "/v1/changes", query: [("since", since), ("include", "content")])
                    guard response.status == 200 else { throw TestAPIClientError.unexpected(response.status, response.text) }
                    pageSizes.append(response.body.count)
                    let page = try response.decode(ChangesPage.self)
                    for note in page.changes { received[note.id] = note.content.map { SHA256.hex(of: $0) } }
                    since = page.cursor
                    if !page.hasMore { break }
                }
            })
            watching.store(false, ordering: .relaxed)
            let healthStatuses = try await health.value
            try fetched.get()

            #expect(received == expected, "every note arrives, content intact")
            #expect(pageSizes.allSatisfy { $0 <= pageBytes }, "page sizes \(pageSizes), bound \(pageBytes)")
            #expect(pageSizes.count >= 10 && pageSizes.count < 20, "notes are packed several to a page: \(pageSizes.count) pages")
            #expect(peak.load(ordering: .relaxed) <= 128 * 1024 * 1024, "peak resident \(peak.load(ordering: .relaxed) / 1_048_576) MiB")
            #expect(!healthStatuses.isEmpty && healthStatuses.allSatisfy { $0 == 200 }, "\(healthStatuses)")
        }
    }

    @Test("a note larger than max_page_bytes comes alone on its page, and the walk goes on after it")
    func largerNoteComesAlone() async throws {
        try await LiveServer.with(["--max-page-bytes", "65536"]) { _, api in
            let small = try await api.create("small.md", "tiny \"quoted\"\n\u{1}")
            let big = try await api.create("big.md", Self.content(200_000, seed: 1))
            let after = try await api.create("after.md", "after")
            var pages: [[NoteID]] = []
            var since = "0"
            for _ in 0..<10 {
                let response = try await api.send("GET", "/v1/changes", query: [("since", since), ("include", "content")])
                let page = try response.decode(ChangesPage.self)
                pages.append(page.changes.map(\.id))
                #expect(page.changes.allSatisfy { $0.content.map { SHA256.hex(of: $0) } == $0.hash })
                since = page.cursor
                if !page.hasMore { break }
            }
            #expect(pages == [[small.id], [big.id], [after.id]])
        }
    }
}
