import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// `POST /v1/content`: several small contents in one request, each held to the checks of
/// `PUT /v1/content/{hash}` (limits and quota before the body, each content's hash before it is
/// stored).
@Suite("Attachments: small contents sent several to a request")
struct AttachmentBatchUploadTests {
    /// A body framed as `ContentBatch` says, from (claimed hash, bytes) pairs.
    static func body(_ frames: [(hash: String, bytes: [UInt8])]) -> Data {
        var body = Data()
        for frame in frames {
            body.append(contentsOf: ContentBatch.header(hash: frame.hash, size: frame.bytes.count))
            body.append(contentsOf: frame.bytes)
        }
        return body
    }

    static func body(_ contents: [[UInt8]]) -> Data {
        body(contents.map { (SHA256.hex(of: $0), $0) })
    }

    static func send(_ api: SignedInApp, _ body: Data) async throws -> TestAPIResponse {
        try await api.send("POST", "/v1/content", body: body, headers: ["Content-Type": ContentBatch.mediaType])
    }

    @Test("a batch stores each of its contents byte-exact, answers one result per frame in order, and finds them present when sent again")
    func storesEachByteExact() async throws {
        try await SignedInApp.with(AttachmentWholeUploadTests.small) { api in
            let contents = [testBytes(300, seed: 61), testBytes(0, seed: 62), testBytes(400, seed: 63)]
            let hashes = contents.map { SHA256.hex(of: $0) }
            let answer = try await Self.send(api, Self.body(contents))
            #expect(answer.status == 200, "\(answer.text)")
            #expect(try answer.decode(ContentBatchResponse.self).contents == zip(hashes, contents).map {
                ContentBatchResult(hash: $0, size: $1.count, status: .created)
            })
            for (hash, bytes) in zip(hashes, contents) {
                let got = try await api.send("GET", "/v1/content/\(hash)")
                #expect(got.status == 200 && Array(got.body) == bytes)
            }
            #expect(try storedContents(api.app).count == 3)
            #expect(try api.app.count("SELECT count(*) FROM uploads") == 0)
            // Held like a content sent alone, so a batch of entries may refer to it at once.
            #expect(try await api.putAttachment("img/a.png", hash: hashes[0]).status == 201)
            let again = try await Self.send(api, Self.body(contents))
            #expect(try again.decode(ContentBatchResponse.self).contents.map(\.status) == [.present, .present, .present])
            #expect(try storedContents(api.app).count == 3)
        }
    }

    @Test("kill -9 of the server right after it answered a batch: every content it acknowledged is there, byte-exact, after a restart")
    func acknowledgedContentsSurviveAKill() async throws {
        let first = try await TestServer()
        var second: TestServer?
        do {
            try await first.addUser("alice", password: TestAccount.password)
            let api = try await TestAPIClient(first).signedIn("alice", password: TestAccount.password)
            // Sizes from 1 KB to 23 KB, in many of the store's folders; one frame's bytes do not match.
            let contents = (0..<24).map { testBytes(1_000 + $0 * 977, seed: 900 + UInt64($0)) }
            var frames = contents.map { (hash: SHA256.hex(of: $0), bytes: $0) }
            frames[5].hash = SHA256.hex(of: testBytes(10, seed: 999))
            let answer = try await api.send("POST", "/v1/content", headers: ["Content-Type": ContentBatch.mediaType], body: Self.body(frames))
            first.kill()
            await first.waitForExit()
            #expect(answer.status == 200, "\(answer.text)")
            let results = try answer.decode(ContentBatchResponse.self).contents
            #expect(results.map(\.status) == contents.indices.map { $0 == 5 ? ContentBatchResult.Status.contentMismatch : .created })

            let restarted = try await TestServer(database: first.databaseLocation)
            second = restarted
            let again = try await TestAPIClient(restarted).signedIn("alice", password: TestAccount.password)
            for (index, bytes) in contents.enumerated() where index != 5 {
                let got = try await again.send("GET", "/v1/content/\(SHA256.hex(of: bytes))")
                #expect(got.status == 200 && Array(got.body) == bytes, "content \(index) acknowledged but \(got.status) after the kill")
            }
            #expect(try await again.send("GET", "/v1/content/\(frames[5].hash)").status == 404)
        } catch {
            Issue.record(error)
        }
        await second?.stop()
        await first.stop()
    }

    @Test("a content whose bytes do not match its hash is refused and nothing of it stored, while the rest of its batch is")
    func mismatchStoresNothingOfThatContent() async throws {
        try await SignedInApp.with(AttachmentWholeUploadTests.small) { api in
            let good = testBytes(300, seed: 64)
            let claimed = testBytes(400, seed: 65)
            let sent = testBytes(400, seed: 66)
            let body = Self.body([(SHA256.hex(of: claimed), sent), (SHA256.hex(of: good), good)])
            let answer = try await Self.send(api, body)
            #expect(answer.status == 200, "\(answer.text)")
            #expect(try answer.decode(ContentBatchResponse.self).contents.map(\.status) == [.contentMismatch, .created])
            #expect(try await api.send("GET", "/v1/content/\(SHA256.hex(of: claimed))").status == 404)
            #expect(try await api.send("GET", "/v1/content/\(SHA256.hex(of: good))").body == Data(good))
            #expect(try storedContents(api.app).count == 1)
            #expect(try api.app.count("SELECT count(*) FROM contents") == 1)
        }
    }

    @Test("a malformed batch (a bad header, a body ending inside a frame) is refused with 400 and stores nothing")
    func malformedStoresNothing() async throws {
        try await SignedInApp.with(AttachmentWholeUploadTests.small) { api in
            let first = testBytes(200, seed: 67)
            var truncated = Self.body([first, testBytes(300, seed: 68)])
            truncated.removeLast(10)
            let cut = try await Self.send(api, truncated)
            #expect(cut.status == 400 && cut.errorCode == "invalid_batch", "\(cut.text)")
            var badHeader = Self.body([first])
            badHeader.append(contentsOf: Array("not-a-hash 3\nabc".utf8))
            let bad = try await Self.send(api, badHeader)
            #expect(bad.status == 400 && bad.errorCode == "invalid_batch")
            let overChunk = testBytes(1000, seed: 69)
            let big = try await Self.send(api, Self.body([(SHA256.hex(of: overChunk), overChunk + overChunk)]).prefix(1024))
            #expect(big.status == 413 && big.errorCode == "chunked_upload_required", "\(big.text)")
            #expect(try storedContents(api.app).isEmpty)
            #expect(try api.app.count("SELECT count(*) FROM contents") == 0)
        }
    }

    @Test("a batch over max_content_batch_bytes or over the quota is refused from its head; /v1/limits publishes the batch size")
    func limitsCheckedFromTheHead() async throws {
        try await SignedInApp.with({ AttachmentWholeUploadTests.small(&$0); $0.attachments.quotaBytes = 1500 }) { api in
            let limits = try await api.send("GET", "/v1/limits").decode(ServerLimits.self)
            #expect(limits.maxContentBatchBytes == 1024)
            let tooLarge = try await Self.send(api, Self.body([testBytes(600, seed: 70), testBytes(600, seed: 71)]))
            #expect(tooLarge.status == 413 && tooLarge.errorCode == "batch_too_large")
            let stored = testBytes(900, seed: 72)
            #expect(try await Self.send(api, Self.body([stored])).status == 200)
            let overQuota = try await Self.send(api, Self.body([testBytes(300, seed: 73), testBytes(400, seed: 74)]))
            #expect(overQuota.status == 507 && overQuota.errorCode == "quota_exceeded")
            #expect(try storedContents(api.app).count == 1)
        }
    }

    @Test("frames split anywhere across the body's pieces are read the same as a body in one piece")
    func framesSplitAnywhere() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let store = FileBlobStore(root: folder.path + "/content")
        let contents = [testBytes(5, seed: 75), testBytes(0, seed: 76), testBytes(130, seed: 77)]
        let body = [UInt8](Self.body(contents))
        let sink = ContentBatchSink(maxContentBytes: 1024) { hash throws(BlobStoreError) in
            try store.makeContentSink(userID: 1, hash: hash)
        }
        defer { sink.discard() }
        for byte in body {
            #expect(withUnsafeBytes(of: byte) { sink.write($0) })
        }
        #expect(sink.finish() == nil)
        #expect(sink.received.map(\.hash) == contents.map { SHA256.hex(of: $0) })
        for (received, bytes) in zip(sink.received, contents) {
            #expect(try received.sink.seal(length: bytes.count, digest: SHA256.digest(of: bytes)))
        }
    }
}
