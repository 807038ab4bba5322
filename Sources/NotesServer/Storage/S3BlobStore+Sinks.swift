import Dispatch
import NotesCore
import Synchronization

extension S3BlobStore {
    /// Sends the contents of a batch that `check` checked to the store, several at once, before
    /// the database's writer is taken; the first failure is thrown once all have finished.
    func makeDurable(_ sinks: [any ChunkSink]) throws(BlobStoreError) {
        let pending = sinks.compactMap { $0 as? S3UploadSink }.filter(\.isChecked)
        guard pending.count > 1 else {
            for sink in pending { try sink.upload() }
            return
        }
        let failure = Mutex<BlobStoreError?>(nil)
        let next = Atomic<Int>(0)
        // A few requests in flight: enough to hide the round trips, few enough to stay polite.
        DispatchQueue.concurrentPerform(iterations: min(8, pending.count)) { _ in
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < pending.count, failure.withLock({ $0 == nil }) else { return }
                do throws(BlobStoreError) { try pending[index].upload() } catch { failure.withLock { $0 = $0 ?? error } }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

/// An upload chunk or a whole content on its way into the bucket: written to a file with no
/// name and hashed as it arrives, checked, then sent as one object signed with its SHA-256
/// (so the store checks it again). Sent by `seal`, or for a batch's contents by
/// `S3BlobStore.makeDurable`, always before the database's writer is taken; `keep` has nothing
/// left to move.
final class S3UploadSink: ChunkSink, @unchecked Sendable {
    // @unchecked: the server calls `write`/`discard` from the connection's thread only, and the
    // handler that calls `check`/`seal`/`keep` runs on that same thread after the last `write`;
    // `makeDurable` sends each checked sink from one thread while that handler waits for it.
    private enum State { case receiving, checked(digest: String), stored, kept, discarded }

    private let store: S3BlobStore
    private let key: String
    /// Whether `discard` removes the object `seal` stored: an upload chunk its upload no longer
    /// wants, yes; a content, no (the same bytes may be what another row names).
    private let removesWhenDiscarded: Bool
    private let file: UnlinkedFile
    private var hasher = SHA256Hasher()
    private var state = State.receiving
    private(set) var byteCount = 0

    init(store: S3BlobStore, key: String, removesWhenDiscarded: Bool, file: UnlinkedFile) {
        self.store = store
        self.key = key
        self.removesWhenDiscarded = removesWhenDiscarded
        self.file = file
    }

    var isChecked: Bool {
        if case .checked = state { return true }
        return false
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard case .receiving = state, file.append(bytes) else { return false }
        hasher.update(bytes)
        byteCount += bytes.count
        return true
    }

    func check(length: Int, digest: [UInt8]) throws(BlobStoreError) -> Bool {
        guard case .receiving = state else { return false }
        guard byteCount == length, ConstantTime.equal(hasher.finalize(), digest) else {
            state = .discarded
            file.close()
            return false
        }
        state = .checked(digest: Hex.encode(digest))
        return true
    }

    func seal(length: Int, digest: [UInt8]) throws(BlobStoreError) -> Bool {
        guard try check(length: length, digest: digest) else { return false }
        try upload()
        return true
    }

    /// Sends the checked bytes as the object (again: nothing). An upload chunk already stored is
    /// not stored again (its bytes were checked when it was): a chunk sent twice with other
    /// bytes never replaces the first.
    func upload() throws(BlobStoreError) {
        guard case .checked(let digest) = state else { return }
        let size = file.size
        let keepsFirst = removesWhenDiscarded
        let stored = try S3BlobStore.mapping("store an object") { () throws(S3Error) -> Bool in
            if keepsFirst, try store.bucket.size(of: key, label: "look for an upload chunk") != nil { return false }
            try store.bucket.put(key, descriptor: file.descriptor, size: size, sha256: digest, label: "store an object")
            return true
        }
        guard stored else {
            state = .kept  // nothing of this request to remove
            file.close()
            return
        }
        state = .stored
        file.close()
    }

    func keep() throws(BlobStoreError) {
        try upload()
        state = .kept
    }

    func discard() {
        if case .stored = state, removesWhenDiscarded {
            try? S3BlobStore.mapping("remove an object") { () throws(S3Error) in try store.bucket.delete(key, label: "remove an object") }
        }
        if case .kept = state { return }
        state = .discarded
        file.close()
    }
}

/// A content joined from an upload's chunks: when its chunks hashed to its name, `stage`
/// already joined them into the content object, so there is nothing to move or undo; an object
/// whose row never commits is the same checked bytes a later upload would store.
final class S3StagedContent: StagedContent, Sendable {
    let hash: String
    let size: Int

    init(hash: String, size: Int) {
        self.hash = hash
        self.size = size
    }

    func commit() throws(BlobStoreError) {}

    func discard() {}
}
