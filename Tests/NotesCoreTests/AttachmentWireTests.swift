import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// The attachment additions to the shared model and wire: which paths are notes, the fixed
/// media-type table, and the new JSON shapes, hand-written and Codable alike.
@Suite("Attachment model and wire")
struct AttachmentWireTests {
    static let hash = String(repeating: "0123456789abcdef", count: 4)

    @Test("a path ending .md or .markdown in any letter case is a note; anything else an attachment",
          arguments: [("a.md", EntryKind.note), ("A/B.MD", .note), ("x.Markdown", .note), ("x.markdown", .note),
                      ("img/arch.png", .attachment), ("notes.txt", .attachment), ("md", .attachment),
                      ("Makefile", .attachment), ("x.md.png", .attachment), ("dir.md/file", .attachment), ("x.mdx", .attachment)])
    func kindFollowsThePath(path: String, kind: EntryKind) {
        #expect(EntryKind(path: path) == kind)
    }

    @Test("attachment paths follow the note path rules except the extension")
    func entryPathsKeepTheRules() throws {
        #expect(try NotePath(entry: "img/arch.png").value == "img/arch.png")
        #expect(try NotePath(entry: "Makefile").kind == .attachment)
        #expect(try NotePath(entry: "caf\u{65}\u{301}.pdf").value == "caf\u{E9}.pdf")
        #expect(throws: NotePathError.dotSegment) { try NotePath(entry: "a/../b.png") }
        #expect(throws: NotePathError.hiddenSegment(".git")) { try NotePath(entry: ".git/config") }
        #expect(throws: NotePathError.absolute) { try NotePath(entry: "/etc/passwd") }
        #expect(throws: NotePathError.forbiddenCharacter("backslash")) { try NotePath(entry: "a\\b.png") }
        #expect(throws: NotePathError.emptySegment) { try NotePath(entry: "img/") }
        #expect(throws: NotePathError.bidiControl("U+202E RIGHT-TO-LEFT OVERRIDE")) { try NotePath.forNewEntry("evil\u{202E}gnp.exe") }
        // The note-only initialiser is unchanged.
        #expect(throws: NotePathError.notMarkdown) { try NotePath("img/arch.png") }
    }

    @Test("media types come from the fixed table: plain images and PDF inline, anything executable or unknown as a download")
    func mediaTypeTable() {
        #expect(MediaType.forPath("a/b.PNG") == MediaType(value: "image/png", isSafeInline: true))
        #expect(MediaType.forPath("photo.jpeg").value == "image/jpeg")
        #expect(MediaType.forPath("doc.pdf").isSafeInline)
        for path in ["page.html", "page.HTM", "logo.svg", "feed.xml", "app.js", "style.css", "notes.txt", "README", "x.unknown"] {
            #expect(!MediaType.forPath(path).isSafeInline, "\(path)")
        }
        #expect(MediaType.forPath("logo.svg").value == "image/svg+xml")
        #expect(MediaType.forPath("README") == .octetStream)
        #expect(MediaType.forPath("x.weird") == .octetStream)
    }

    @Test("entries, revisions and batch operations of both kinds encode by hand as JSONEncoder does and decode back")
    func entryShapesRoundTrip() throws {
        let attachment = NoteResource(id: NoteID(), path: "img/a.png", content: nil, hash: Self.hash, rev: 7, size: 1234,
                                      createdAt: "2026-12-01T08:00:00.000Z", updatedAt: "2026-12-01T08:00:00.000Z", deleted: false,
                                      kind: .attachment, mediaType: "image/png")
        let note = NoteResource(id: NoteID(), path: "a.md", content: "hi", hash: Self.hash, rev: 8, size: 2,
                                createdAt: "2026-12-01T08:00:00.000Z", updatedAt: "2026-12-01T08:00:00.000Z", deleted: false)
        for entry in [attachment, note] {
            #expect(entry.wireJSON() == Array(try WireJSON.encoder().encode(entry)))
            #expect(try WireJSON.decoder().decode(NoteResource.self, from: Data(entry.wireJSON())) == entry)
            #expect(WireJSONReading.decode(NoteResource.self, from: Data(entry.wireJSON())) == entry)
        }
        let page = ChangesPage(changes: [attachment, note], cursor: "9", hasMore: false)
        #expect(WireJSONReading.decode(ChangesPage.self, from: Data(page.wireJSON())) == page)

        let put = BatchOperation(op: .put, id: NoteID(), path: "img/a.png", ifNoneMatch: "*", kind: .attachment, hash: Self.hash)
        let request = BatchRequest(operations: [put, BatchOperation(op: .delete, id: NoteID(), ifMatch: 3)])
        #expect(request.wireJSON() == Array(try WireJSON.encoder().encode(request)))
        #expect(try WireJSON.decoder().decode(BatchRequest.self, from: Data(request.wireJSON())) == request)
        #expect(String(decoding: put.wireJSON(), as: UTF8.self).contains(#""kind":"attachment""#))

        let revision = RevisionResource(id: attachment.id, rev: 7, path: "img/a.png", hash: Self.hash, size: 1234, deleted: false,
                                        createdAt: "2026-12-01T08:00:00.000Z", content: nil, kind: .attachment, mediaType: "image/png")
        #expect(try WireJSON.decoder().decode(RevisionResource.self, from: WireJSON.encoder().encode(revision)) == revision)
    }

    @Test("JSON from servers before attachments (no kind, no media_type) reads as notes, and unknown members are skipped")
    func oldShapesReadAsNotes() throws {
        let old = #"{"id":"6F1C1E9A-1B2C-4D3E-8F40-5A6B7C8D9E0F","path":"a.md","hash":"h","rev":1,"size":2,"#
            + #""created_at":"t","updated_at":"t","deleted":false,"future_field":{"x":[1,2]}}"#
        let codable = try WireJSON.decoder().decode(NoteResource.self, from: Data(old.utf8))
        #expect(codable.kind == .note && codable.mediaType == nil)
        #expect(WireJSONReading.decode(NoteResource.self, from: Data(old.utf8)) == codable)
        let oldOperation = #"{"op":"put","id":"6F1C1E9A-1B2C-4D3E-8F40-5A6B7C8D9E0F","path":"a.md","content":"x"}"#
        #expect(try WireJSON.decoder().decode(BatchOperation.self, from: Data(oldOperation.utf8)).kind == .note)
        let oldRevision = #"{"id":"6F1C1E9A-1B2C-4D3E-8F40-5A6B7C8D9E0F","rev":1,"path":"a.md","hash":"h","size":2,"#
            + #""deleted":false,"created_at":"t","kind":null}"#
        let revision = try WireJSON.decoder().decode(RevisionResource.self, from: Data(oldRevision.utf8))
        #expect(revision.kind == .note && revision.mediaType == nil && revision.device == nil)
        let limits = #"{"max_note_bytes":1,"max_request_bytes":2,"max_batch_operations":3,"max_page_size":4,"requests_per_minute":5}"#
        let decoded = try WireJSON.decoder().decode(ServerLimits.self, from: Data(limits.utf8))
        #expect(decoded.maxAttachmentBytes == nil && decoded.quotaBytes == nil && decoded.uploadChunkBytes == nil)
    }

    @Test("content and upload shapes round-trip; the hot ones by hand too")
    func contentShapesRoundTrip() throws {
        let ask = ContentMissingRequest(hashes: [Self.hash, String(repeating: "f", count: 64)])
        #expect(ask.wireJSON() == Array(try WireJSON.encoder().encode(ask)))
        #expect(WireJSONReading.decode(ContentMissingRequest.self, from: Data(ask.wireJSON())) == ask)
        let answer = ContentMissingResponse(missing: [Self.hash])
        #expect(answer.wireJSON() == Array(try WireJSON.encoder().encode(answer)))
        #expect(WireJSONReading.decode(ContentMissingResponse.self, from: Data(answer.wireJSON())) == answer)
        let state = UploadState(hash: Self.hash, size: 20, chunkSize: 8, received: [0, 2])
        let json = String(decoding: try WireJSON.encoder().encode(state), as: UTF8.self)
        #expect(json == #"{"chunk_size":8,"hash":"\#(Self.hash)","received":[0,2],"size":20}"#)
        #expect(try WireJSON.decoder().decode(UploadState.self, from: Data(json.utf8)) == state)
        #expect(state.chunkCount == 3)
        #expect(UploadState.chunkCount(size: 0, chunkSize: 8) == 1)
        #expect(UploadState.chunkCount(size: 16, chunkSize: 8) == 2)
    }

    @Test("content hashes are 64 lowercase hex characters; Content-Digest carries a SHA-256 in RFC 9530 form")
    func hashesAndDigests() {
        #expect(ContentHash.isValid(Self.hash))
        #expect(!ContentHash.isValid(Self.hash.uppercased()))
        #expect(!ContentHash.isValid(String(Self.hash.dropLast())))
        #expect(!ContentHash.isValid("../" + String(Self.hash.dropFirst(3))))
        let digest = SHA256.digest(of: Array("chunk".utf8))
        let header = ContentDigest.header(sha256: digest)
        #expect(header.hasPrefix("sha-256=:") && header.hasSuffix(":"))
        #expect(ContentDigest.sha256(fromHeader: header) == digest)
        #expect(ContentDigest.sha256(fromHeader: "md5=:AAAA:, " + header) == digest)
        #expect(ContentDigest.sha256(fromHeader: "sha-256=AAAA") == nil)
        #expect(ContentDigest.sha256(fromHeader: "sha-256=:AAAA:") == nil)
    }
}

@Suite("SHA-256 in pieces")
struct SHA256HasherTests {
    @Test("hashing in pieces of any size gives the one-shot digest")
    func piecesMatchOneShot() {
        var random = SeededRandom(seed: 13)
        let bytes = (0..<100_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        for piece in [1, 7, 4096, 65_536, 100_000] {
            var hasher = SHA256Hasher()
            var start = 0
            while start < bytes.count {
                hasher.update(bytes[start..<min(start + piece, bytes.count)])
                start += piece
            }
            #expect(Hex.encode(hasher.finalize()) == SHA256.hex(of: bytes))
        }
        #expect(Hex.encode(SHA256Hasher().finalize()) == SHA256.hex(of: [UInt8]()))
    }
}
