import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Chunks that arrive out of order, twice, or wrong: what is received stays exactly what was
/// verified, and `complete` stores the right content (on either backend).
@Suite("Attachments: chunks in any order, sent again, or wrong")
struct AttachmentChunkOrderTests {
    @Test("chunks sent out of order and some of them again complete to the right content")
    func outOfOrderAndRepeatedChunksComplete() async throws {
        try await SignedInApp.with(AttachmentUploadTests.small) { api in
            let bytes = testBytes(4 * 1024 + 300, seed: 21)
            let hash = SHA256.hex(of: bytes)
            #expect(try await api.openUpload(bytes).status == 201)
            for index in [3, 1, 4, 1, 0, 3, 2] {
                let start = index * 1024
                let chunk = try await api.sendChunk(bytes[start..<min(start + 1024, bytes.count)], hash: hash, index: index)
                #expect(chunk.status == 204, "chunk \(index): \(chunk.text)")
            }
            #expect(try await api.send("GET", "/v1/uploads/\(hash)").decode(UploadState.self).received == [0, 1, 2, 3, 4])
            #expect(try await api.send("POST", "/v1/uploads/\(hash)/complete").status == 201)
            let entry = try await api.putAttachment("shuffled.bin", hash: hash)
            let fetched = try await api.send("GET", "/v1/attachments/\(entry.id)")
            #expect(fetched.status == 200 && Array(fetched.body) == bytes)
        }
    }

    @Test("a received chunk sent again with other bytes is refused or ignored, never written: the content completes intact")
    func receivedChunkNeverOverwritten() async throws {
        try await SignedInApp.with(AttachmentUploadTests.small) { api in
            let bytes = testBytes(3 * 1024, seed: 22)
            let other = testBytes(1024, seed: 23)
            let hash = SHA256.hex(of: bytes)
            #expect(try await api.openUpload(bytes).status == 201)
            #expect(try await api.sendChunk(bytes[0..<1024], hash: hash, index: 0).status == 204)
            // Other bytes under the right chunk's digest: refused.
            let lying = try await api.sendChunk(other[...], hash: hash, index: 0, digest: SHA256.digest(of: bytes[0..<1024]))
            #expect(lying.status == 422 && lying.errorCode == "chunk_mismatch")
            // Other bytes with their own digest (the file changed on the client): not stored over the first.
            _ = try await api.sendChunk(other[...], hash: hash, index: 0)
            // A wrong digest for a chunk not received yet: refused, and not received.
            let wrong = try await api.sendChunk(other[...], hash: hash, index: 1, digest: SHA256.digest(of: bytes[1024..<2048]))
            #expect(wrong.status == 422 && wrong.errorCode == "chunk_mismatch")
            #expect(try await api.send("GET", "/v1/uploads/\(hash)").decode(UploadState.self).received == [0])
            let missing = try await api.send("POST", "/v1/uploads/\(hash)/complete")
            #expect(missing.status == 409 && missing.errorCode == "upload_incomplete")
            #expect(try await api.sendChunk(bytes[1024..<2048], hash: hash, index: 1).status == 204)
            #expect(try await api.sendChunk(bytes[2048..<3072], hash: hash, index: 2).status == 204)
            #expect(try await api.send("POST", "/v1/uploads/\(hash)/complete").status == 201)
            let entry = try await api.putAttachment("kept.bin", hash: hash)
            let fetched = try await api.send("GET", "/v1/attachments/\(entry.id)")
            #expect(fetched.status == 200 && Array(fetched.body) == bytes)
        }
    }
}

/// The file store's staged uploads across a restart: a new store on the same folder (what a
/// restarted server has) knows the received chunks from disk and completes the upload.
@Suite("File store: chunks written in place into one staged file")
struct FileBlobStoreStagedUploadTests {
    static let chunkSize = 1000

    private func send(_ bytes: [UInt8], index: Int, of upload: UploadState, to store: FileBlobStore, digest: [UInt8]? = nil) throws -> Bool {
        let start = index * upload.chunkSize
        let chunk = bytes[start..<min(start + upload.chunkSize, bytes.count)]
        let sink = try store.makeChunkSink(for: upload, userID: 1, index: index)
        defer { sink.discard() }
        // In pieces, as the HTTP layer hands them over.
        var offset = chunk.startIndex
        while offset < chunk.endIndex {
            let end = min(offset + 300, chunk.endIndex)
            #expect(chunk[offset..<end].withUnsafeBytes { sink.write($0) })
            offset = end
        }
        guard try sink.seal(length: chunk.count, digest: digest ?? SHA256.digest(of: chunk)) else { return false }
        try sink.keep()
        return true
    }

    @Test("a restarted store resumes from the chunks on disk, takes the rest in any order, and stages the right content")
    func resumesAfterRestart() throws {
        let folder = try TemporaryDirectory("staged-upload")
        defer { folder.remove() }
        let bytes = testBytes(4500, seed: 31)
        let hash = SHA256.hex(of: bytes)
        let upload = UploadState(hash: hash, size: bytes.count, chunkSize: Self.chunkSize, received: [])
        let before = FileBlobStore(root: folder.path)
        #expect(try send(bytes, index: 0, of: upload, to: before))
        #expect(try send(bytes, index: 3, of: upload, to: before))
        // A chunk with a wrong digest is refused and leaves no mark.
        #expect(try !send(bytes, index: 1, of: upload, to: before, digest: SHA256.digest(of: [UInt8]("other".utf8))))

        let after = FileBlobStore(root: folder.path)  // the server restarted: nothing in memory
        #expect(try after.receivedChunks(userID: 1, hash: hash) == [0, 3])
        #expect(try send(bytes, index: 4, of: upload, to: after))
        #expect(try send(bytes, index: 2, of: upload, to: after))
        #expect(try send(bytes, index: 0, of: upload, to: after))  // again: checked, not written
        #expect(try send(bytes, index: 1, of: upload, to: after))
        #expect(try after.receivedChunks(userID: 1, hash: hash) == [0, 1, 2, 3, 4])
        let staged = try after.stage(upload, userID: 1)
        #expect(staged.hash == hash && staged.size == bytes.count)
        try staged.commit()
        try after.removeUpload(userID: 1, hash: hash)
        let stored = try #require(try after.openContent(userID: 1, hash: hash))
        defer { stored.close() }
        #expect(stored.size == Int64(bytes.count))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: after.contentPath(userID: 1, hash: hash)))) == bytes)
        #expect(!FileManager.default.fileExists(atPath: after.uploadFolder(userID: 1, hash: hash)))
    }

    @Test("a chunk sent while another request still sends it is answered 503 chunk_in_progress with Retry-After, and stored once the first finishes")
    func chunkSentTwiceAtOnceAsksTheSecondToRetry() throws {
        let folder = try TemporaryDirectory("staged-upload")
        defer { folder.remove() }
        let bytes = testBytes(2000, seed: 33)
        let upload = UploadState(hash: SHA256.hex(of: bytes), size: bytes.count, chunkSize: Self.chunkSize, received: [])
        let store = FileBlobStore(root: folder.path)
        let first = try store.makeChunkSink(for: upload, userID: 1, index: 0)
        defer { first.discard() }
        #expect(bytes[0..<400].withUnsafeBytes { first.write($0) })

        // The same chunk, whole and right, while the first request is still sending it.
        do {
            _ = try send(bytes, index: 0, of: upload, to: store)
            Issue.record("a second copy of a chunk being written must not be taken as received")
        } catch let error as BlobStoreError {
            let answer = try #require(HTTPError(blobStoreFailure: error))
            #expect(answer.status == 503 && answer.code == "chunk_in_progress")
            #expect(answer.headers["Retry-After"] == "1")
        }
        #expect(try store.receivedChunks(userID: 1, hash: upload.hash) == [])

        #expect(bytes[400..<1000].withUnsafeBytes { first.write($0) })
        #expect(try first.seal(length: 1000, digest: SHA256.digest(of: bytes[0..<1000])))
        try first.keep()
        #expect(try send(bytes, index: 0, of: upload, to: store), "sent again after Retry-After: checked and answered as stored")
        #expect(try store.receivedChunks(userID: 1, hash: upload.hash) == [0])
    }

    @Test("chunks received in order are hashed as they arrive, so complete reads nothing back")
    func inOrderChunksHashedAsTheyArrive() throws {
        let folder = try TemporaryDirectory("staged-upload")
        defer { folder.remove() }
        let bytes = testBytes(3500, seed: 32)
        let hash = SHA256.hex(of: bytes)
        let upload = UploadState(hash: hash, size: bytes.count, chunkSize: Self.chunkSize, received: [])
        let store = FileBlobStore(root: folder.path)
        // Chunk 1 before 0: hashed once 0 arrives.
        for index in [1, 0, 2, 3] { #expect(try send(bytes, index: index, of: upload, to: store)) }
        let running = store.stagedUploads.existing(folder: store.uploadFolder(userID: 1, hash: hash))
        #expect(running?.wholeHash(chunkCount: upload.chunkCount) == hash)
    }
}
