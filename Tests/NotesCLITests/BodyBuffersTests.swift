import Foundation
import Testing
@testable import notes_cli

/// Upload bodies share reused memory (`BodyBuffers`): a body must never change under a request
/// that can still send it, however the buffers are reused.
@Suite("Upload body buffers")
struct BodyBuffersTests {
    private func address(_ data: Data) -> UnsafeRawPointer? {
        data.withUnsafeBytes { $0.baseAddress }
    }

    @Test("a body's memory is handed out again only once every copy of that body is gone, and then it is reused")
    func reusedOnlyAfterLastCopy() throws {
        let buffers = BodyBuffers(limit: 2)
        var first = try #require(buffers.body(capacity: 4096) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 1)
            return 4096
        })
        let kept = first
        let firstAddress = address(first)
        first = Data()
        let second = try #require(buffers.body(capacity: 4096) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 2)
            return 4096
        })
        #expect(address(second) != firstAddress)
        #expect(kept == Data(repeating: 1, count: 4096), "a live body was overwritten by the next one")
        #expect(second == Data(repeating: 2, count: 4096))

        // `kept` was the last copy of the first body: its memory comes back and is reused.
        _ = consume kept
        let third = try #require(buffers.body(capacity: 1000) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 3)
            return 1000
        })
        #expect(address(third) == firstAddress)
        #expect(third == Data(repeating: 3, count: 1000))
    }

    @Test("a fill that has nothing to send, or throws, gives its buffer back at once")
    func nothingToSendGivesBack() throws {
        struct Unreadable: Error {}
        let buffers = BodyBuffers(limit: 1)
        var body = try #require(buffers.body(capacity: 64) { _ in 64 })
        let pooled = address(body)
        body = Data()
        #expect(buffers.body(capacity: 64) { _ in nil } == nil)
        #expect(throws: Unreadable.self) { try buffers.body(capacity: 64) { _ in throw Unreadable() } }
        #expect(buffers.body(capacity: 64) { _ in 0 } == Data())
        // Had any of those kept the one pooled buffer, this body would be in fresh memory.
        let next = try #require(buffers.body(capacity: 64) { _ in 64 })
        #expect(address(next) == pooled)
    }
}
