import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// `PUT /v1/content/{hash}`: a content no larger than a chunk in one request, held to the same
/// checks as the chunked upload (limits and quota before the body, the hash before storing).
@Suite("Attachments: a small content sent whole")
struct AttachmentWholeUploadTests {
    /// The chunked upload tests' small chunks and limit, so "one chunk" is a small file here too.
    static func small(_ configuration: inout ServerConfiguration) {
        AttachmentUploadTests.small(&configuration)
    }

    @Test("a content sent whole is stored in one request, served back, and found stored when sent again")
    func storedInOneRequest() async throws {
        try await SignedInApp.with(Self.small) { api in
            let bytes = testBytes(1000, seed: 41)
            let hash = SHA256.hex(of: bytes)
            let put = try await api.send("PUT", "/v1/content/\(hash)", body: Data(bytes))
            #expect(put.status == 201, "\(put.text)")
            #expect(try put.decode(StoredContent.self) == StoredContent(hash: hash, size: 1000))
            #expect(try storedContents(api.app).count == 1)
            #expect(try api.app.count("SELECT count(*) FROM uploads") == 0)
            let got = try await api.send("GET", "/v1/content/\(hash)")
            #expect(got.status == 200 && Array(got.body) == bytes)
            // Held like a completed upload, so a batch may refer to it at once.
            #expect(try await api.putAttachment("img/a.png", hash: hash).status == 201)
            let again = try await api.send("PUT", "/v1/content/\(hash)", body: Data(bytes))
            #expect(again.status == 200)
            #expect(try storedContents(api.app).count == 1)
        }
    }

    @Test("bytes that do not hash to the content's hash are refused and nothing of them remains")
    func wrongBytesLeaveNothing() async throws {
        try await SignedInApp.with({ Self.small(&$0); $0.attachments.quotaBytes = 1500 }) { api in
            let claimed = testBytes(900, seed: 42)
            let sent = testBytes(900, seed: 43)
            let hash = SHA256.hex(of: claimed)
            let put = try await api.send("PUT", "/v1/content/\(hash)", body: Data(sent))
            #expect(put.status == 422 && put.errorCode == "content_mismatch")
            #expect(try storedContents(api.app).isEmpty)
            #expect(try api.app.count("SELECT count(*) FROM contents") == 0)
            #expect(try api.app.count("SELECT count(*) FROM uploads") == 0)
            #expect(try await api.send("GET", "/v1/content/\(hash)").status == 404)
            // The refused bytes reserved nothing: the quota still takes the real ones.
            #expect(try await api.send("PUT", "/v1/content/\(hash)", body: Data(claimed)).status == 201)
        }
    }

    @Test("a content over a chunk, over the attachment limit or over the quota is refused before its body is read")
    func limitsCheckedFromTheHead() async throws {
        try await SignedInApp.with({ Self.small(&$0); $0.attachments.quotaBytes = 1500 }) { api in
            let overChunk = testBytes(1025, seed: 44)
            let chunked = try await api.send("PUT", "/v1/content/\(SHA256.hex(of: overChunk))", body: Data(overChunk))
            #expect(chunked.status == 413 && chunked.errorCode == "chunked_upload_required")
            let overLimit = testBytes(64 * 1024 + 1, seed: 48)
            let tooLarge = try await api.send("PUT", "/v1/content/\(SHA256.hex(of: overLimit))", body: Data(overLimit))
            #expect(tooLarge.status == 413 && tooLarge.errorCode == "attachment_too_large")
            let first = testBytes(1000, seed: 45)
            #expect(try await api.send("PUT", "/v1/content/\(SHA256.hex(of: first))", body: Data(first)).status == 201)
            let second = testBytes(1000, seed: 46)
            let quota = try await api.send("PUT", "/v1/content/\(SHA256.hex(of: second))", body: Data(second))
            #expect(quota.status == 507 && quota.errorCode == "quota_exceeded")
            #expect(try storedContents(api.app).count == 1)
            let noLength = try await api.send("PUT", "/v1/content/\(SHA256.hex(of: first))")
            #expect(noLength.status == 411 && noLength.errorCode == "length_required")
            #expect(try await api.send("PUT", "/v1/content/not-a-hash", body: Data("x".utf8)).errorCode == "invalid_hash")
        }
    }

    @Test("an empty content is stored whole too")
    func emptyContent() async throws {
        try await SignedInApp.with(Self.small) { api in
            let hash = SHA256.hex(of: [UInt8]())
            let put = try await api.send("PUT", "/v1/content/\(hash)", headers: ["Content-Length": "0"])
            #expect(put.status == 201, "\(put.text)")
            #expect(try await api.send("GET", "/v1/content/\(hash)").status == 200)
            #expect(try api.app.count("SELECT count(*) FROM uploads") == 0)
        }
    }

    @Test("a resumable upload left open of the same content is finished by a whole send")
    func finishesAnOpenUpload() async throws {
        try await SignedInApp.with(Self.small) { api in
            let bytes = testBytes(700, seed: 47)
            let hash = SHA256.hex(of: bytes)
            let opened = try await api.openUpload(bytes)
            #expect(opened.status == 201)
            #expect(try await api.send("PUT", "/v1/content/\(hash)", body: Data(bytes)).status == 201)
            #expect(try await api.send("GET", "/v1/uploads/\(hash)").status == 404)
            #expect(try await api.send("GET", "/v1/content/\(hash)").body == Data(bytes))
        }
    }
}
