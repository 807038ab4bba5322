import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The upload form's chunked path: a file larger than one request goes up in verified chunks
/// through the content store's resumable upload (the one `notes sync` uses), with the browser
/// session and its CSRF token, and becomes an attachment the changes feed carries.
@Suite("Web chunked upload")
struct WebChunkedUploadTests {
    /// A small chunk size, so a few KiB make several chunks.
    static func smallChunks(_ configuration: inout ServerConfiguration) {
        configuration.attachments.uploadChunkBytes = 1024
    }

    @Test("start, every chunk, complete: the file is stored whole, listed in the changes feed, and a second start resumes")
    func chunkedUploadStoresTheFile() async throws {
        try await SignedInApp.with(Self.smallChunks) { api in
            let browser = WebBrowser(api.app)
            try await browser.signIn()
            let csrf = try await browser.csrf()
            let bytes = testBytes(3000, seed: 7)
            let hash = SHA256.hex(of: bytes)
            let fields = [("csrf", csrf), ("folder", "Videos/"), ("name", "clip.mp4")]
            let started = await browser.post("/upload/start", fields + [("hash", hash), ("size", "3000")])
            #expect(started.status == 201, "\(started.body)")
            let state = try WireJSON.decoder().decode(UploadState.self, from: Data(started.body.utf8))
            #expect(state.chunkSize == 1024 && state.chunkCount == 3 && state.received.isEmpty)

            let first = await browser.putChunk(bytes[0..<1024], hash: hash, index: 0, csrf: csrf)
            #expect(first.status == 204, "\(first.body)")
            let resumed = await browser.post("/upload/start", fields + [("hash", hash), ("size", "3000")])
            #expect(try WireJSON.decoder().decode(UploadState.self, from: Data(resumed.body.utf8)).received == [0], "a second start resumes")
            for index in 1..<3 {
                let chunk = bytes[(index * 1024)..<min((index + 1) * 1024, bytes.count)]
                #expect(await browser.putChunk(chunk, hash: hash, index: index, csrf: csrf).status == 204)
            }
            let done = await browser.post("/upload/\(hash)/complete", fields)
            #expect(done.status == 200 && done.body.contains(#""location":"/?done=uploaded&folder=Videos""#), "\(done.body)")
            let feed = try await api.send("GET", "/v1/changes", query: [("kinds", "note,attachment")]).decode(ChangesPage.self)
            let entry = try #require(feed.changes.first { $0.path == "Videos/clip.mp4" })
            #expect(entry.kind == .attachment && entry.hash == hash && entry.size == 3000)
            #expect(await browser.fetch("/files/Videos/clip.mp4").body == Data(bytes))
            let again = await browser.post("/upload/start", fields + [("hash", hash), ("size", "3000")])
            #expect(again.status == 409 && again.body.contains("There is already a note or file at Videos/clip.mp4"), "\(again.body)")
        }
    }

    @Test("a chunk whose bytes do not match its digest, without the CSRF header or from another site, stores nothing")
    func chunkChecks() async throws {
        try await SignedInApp.with(Self.smallChunks) { api in
            let browser = WebBrowser(api.app)
            try await browser.signIn()
            let csrf = try await browser.csrf()
            let bytes = testBytes(1500, seed: 8)
            let hash = SHA256.hex(of: bytes)
            #expect(await browser.post("/upload/start", [("csrf", csrf), ("name", "a.bin"), ("hash", hash), ("size", "1500")]).status == 201)
            let forged = await browser.putChunk(bytes[0..<1024], hash: hash, index: 0, csrf: "forged")
            #expect(forged.status == 403)
            let elsewhere = await browser.putChunk(bytes[0..<1024], hash: hash, index: 0, csrf: csrf, origin: "https://evil.example")
            #expect(elsewhere.status == 403)
            let wrong = await browser.putChunk(bytes[0..<1024], hash: hash, index: 0, csrf: csrf, digest: SHA256.digest(of: bytes[1..<1025]))
            #expect(wrong.status == 422 && wrong.body.contains("chunk_mismatch"), "\(wrong.body)")
            #expect(try api.app.application.contents.openUpload(userID: 1, hash: hash, size: 1500).state.received.isEmpty, "no chunk was kept")
            let early = await browser.post("/upload/\(hash)/complete", [("csrf", csrf), ("name", "a.bin")])
            #expect(early.status == 409 && early.body.contains("upload_incomplete"))
            let feed = try await api.send("GET", "/v1/changes", query: [("kinds", "note,attachment")]).decode(ChangesPage.self)
            #expect(feed.changes.isEmpty)
        }
    }

    @Test("a file over the attachment limit or a path the form refuses is refused at start, in words, before any chunk")
    func startRefusesInWords() async throws {
        try await SignedInApp.with({ $0.attachments.maxAttachmentBytes = 2048 }) { api in
            let browser = WebBrowser(api.app)
            try await browser.signIn()
            let csrf = try await browser.csrf()
            let hash = SHA256.hex(of: testBytes(10, seed: 1))
            let large = await browser.post("/upload/start", [("csrf", csrf), ("name", "big.bin"), ("hash", hash), ("size", "3000")])
            #expect(large.status == 413 && large.body.contains("This file has 2 KB; a file may have at most 2 KB. Nothing was stored."), "\(large.body)")
            let note = await browser.post("/upload/start", [("csrf", csrf), ("name", "a.md"), ("hash", hash), ("size", "10")])
            #expect(note.status == 422 && note.body.contains("Markdown note"))
            let hidden = await browser.post("/upload/start", [("csrf", csrf), ("name", ".env"), ("hash", hash), ("size", "10")])
            #expect(hidden.status == 422)
            let noToken = await browser.post("/upload/start", [("name", "x.bin"), ("hash", hash), ("size", "10")])
            #expect(noToken.status == 403)
        }
    }
}

extension WebBrowser {
    /// PUTs one chunk as the upload script does, its body streamed into the route's sink as the
    /// HTTP layer streams it (through the responder's body admission).
    func putChunk(_ bytes: ArraySlice<UInt8>, hash: String, index: Int, csrf: String, origin: String? = nil,
                  digest: [UInt8]? = nil) async -> Page {
        let path = "/upload/\(hash)/chunks/\(index)"
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        headers.add(name: "Origin", value: origin ?? self.origin)
        headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; "))
        headers.add(name: "Content-Type", value: "application/octet-stream")
        headers.add(name: "Content-Length", value: String(bytes.count))
        headers.add(name: "Content-Digest", value: ContentDigest.header(sha256: digest ?? SHA256.digest(of: bytes)))
        headers.add(name: WebApp.csrfHeader, value: csrf)
        let head = HTTPRequest(method: "PUT", path: path, query: [:], headers: headers)
        let responder = app.application.responder
        var sink: (any RequestBodySink)?
        switch responder.admitBody(of: head) {
        case .refuse(let error):
            return Page(status: error.status, headers: [:], body: String(decoding: responder.refusal(error, for: head).body, as: UTF8.self))
        case .accept:
            Issue.record("a chunk's body is streamed, never read into memory")
        case .stream(let streamed, let maxBytes):
            #expect(bytes.count <= maxBytes)
            _ = bytes.withUnsafeBytes { streamed.write($0) }
            sink = streamed
        }
        defer { sink?.discard() }
        let request = HTTPRequest(method: "PUT", path: path, query: [:], headers: headers, body: [], bodySink: sink)
        let response: HTTPResponse
        switch responder.respond(to: request) {
        case .now(let answer): response = answer
        case .later(let work): response = await work()
        }
        return Page(status: response.status, headers: response.headers, body: String(decoding: response.body, as: UTF8.self))
    }
}
