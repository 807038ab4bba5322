import Foundation
import Synchronization

/// Request bodies of attachment uploads sent from memory (a batch of small contents) in memory
/// that is reused rather than freed. (A chunk of a large content is sent from its file:
/// `FileBody`.)
///
/// Each body is megabytes, which the allocator maps fresh for every request (the client's mmap
/// threshold is 1 MiB: see main.swift) and the kernel zeroes page by page as the body is read
/// into it: a quarter of the client's CPU when a 1 GiB upload's chunks went this way. A buffer
/// that comes back is already resident, so the next body costs only the read.
///
/// A body is handed out as `Data` over the buffer (no copy), which gives the buffer back when
/// the last copy of that `Data` is gone: never while anything (a retry of the request, the
/// transport) can still read it. At most `limit` buffers are kept; others are freed.
final class BodyBuffers: Sendable {
    /// Memory owned by the pool while it is in `free`, and by exactly one `Data` while out.
    private struct Buffer: @unchecked Sendable {
        let base: UnsafeMutableRawPointer
        let capacity: Int
    }

    private let free = Mutex<[Buffer]>([])
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    deinit {
        free.withLock { $0.forEach { $0.base.deallocate() } }
    }

    /// A body of up to `capacity` bytes, written by `fill`, which returns how many bytes it
    /// wrote, or nil to give the buffer back at once (nothing to send).
    func body(capacity: Int, _ fill: (UnsafeMutableRawBufferPointer) throws -> Int?) rethrows -> Data? {
        let buffer = take(capacity: capacity)
        let count: Int?
        do {
            count = try fill(UnsafeMutableRawBufferPointer(start: buffer.base, count: capacity))
        } catch {
            giveBack(buffer)
            throw error
        }
        guard let count, count > 0 else {
            giveBack(buffer)
            return count == 0 ? Data() : nil
        }
        precondition(count <= capacity, "a body was filled past its buffer")
        return Data(bytesNoCopy: buffer.base, count: count, deallocator: .custom { [self] _, _ in giveBack(buffer) })
    }

    private func take(capacity: Int) -> Buffer {
        let reused = free.withLock { free -> Buffer? in
            guard let index = free.firstIndex(where: { $0.capacity >= capacity }) else { return nil }
            return free.remove(at: index)
        }
        return reused ?? Buffer(base: .allocate(byteCount: max(capacity, 1), alignment: 16), capacity: capacity)
    }

    private func giveBack(_ buffer: Buffer) {
        let kept = free.withLock { free -> Bool in
            guard free.count < limit else { return false }
            free.append(buffer)
            return true
        }
        if !kept { buffer.base.deallocate() }
    }
}
