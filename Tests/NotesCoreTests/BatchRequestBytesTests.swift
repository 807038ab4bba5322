import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Sync writes each batch operation once, as it fills a batch, and puts the body together from
/// those bytes (`BatchRequest.wireJSON(written:)`): it must be the body written whole.
@Suite("Batch request bytes")
struct BatchRequestBytesTests {
    @Test("a body put together from operations written one by one is byte for byte the body written whole, and JSONEncoder's (seeded random values)")
    func bodyFromWrittenOperationsMatchesWholeBody() throws {
        var random = SeededRandom(seed: 20261203)
        for _ in 0..<300 {
            let operations = (0..<Int(random.next() % 6)).map { _ -> BatchOperation in
                switch random.next() % 4 {
                case 0: BatchOperation(op: .put, id: NoteID(), path: WireJSONWriterTests.randomString(&random) + ".md",
                                       content: WireJSONWriterTests.randomString(&random), ifNoneMatch: "*")
                case 1: BatchOperation(op: .put, id: NoteID(), path: WireJSONWriterTests.randomString(&random) + ".md",
                                       content: WireJSONWriterTests.randomString(&random), ifMatch: Int64(random.next() % 1_000_000))
                case 2: BatchOperation(op: .put, id: NoteID(), path: "a/" + WireJSONWriterTests.randomString(&random) + ".png",
                                       ifNoneMatch: "*", kind: .attachment, hash: String(repeating: "cd", count: 32))
                default: BatchOperation(op: .delete, id: NoteID(), ifMatch: Int64(random.next() % 1_000_000))
                }
            }
            let request = BatchRequest(operations: operations)
            let assembled = BatchRequest.wireJSON(written: operations.map { $0.wireJSON() })
            #expect(assembled == request.wireJSON())
            #expect(assembled == Array(try WireJSON.encoder().encode(request)))
            let framing = assembled.count - operations.reduce(max(operations.count - 1, 0)) { $0 + $1.wireJSON().count }
            #expect(framing == BatchRequest.wireJSONFraming)
        }
    }
}
