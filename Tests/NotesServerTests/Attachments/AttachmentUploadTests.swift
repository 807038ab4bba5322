import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Uploads, content storage and batches of attachments, in-process on real SQLite and real
/// files (small chunks, so chunked paths are exercised with small files).
@Suite("Attachments: uploads and content store")
struct AttachmentUploadTests {
    static func small(_ configuration: inout ServerConfiguration) {
        configuration.attachments.uploadChunkBytes = 1024
        configuration.attachments.maxAttachmentBytes = 64 * 1024
    }

    @Test("the same bytes at two paths are stored once: the content store grows by one content")
    func sameBytesStoredOnce() async throws {
        try await SignedInApp.with(Self.small) { api in
            let bytes = testBytes(3000, seed: 1)
            let hash = try await api.upload(bytes)
            #expect(try storedContents(api.app).count == 1)
            // The second path asks first and is told the content is there: nothing is sent again.
            let asked = try await api.send("POST", "/v1/content/missing", json: ContentMissingRequest(hashes: [hash]))
            #expect(try asked.decode(ContentMissingResponse.self).missing == [])
            let first = try await api.putAttachment("img/a.png", hash: hash)
            let second = try await api.putAttachment("copies/b.png", hash: hash)
            #expect(first.status == 201 && second.status == 201)
            #expect(second.note?.kind == .attachment && second.note?.size == 3000 && second.note?.mediaType == "image/png")
            #expect(second.note?.content == nil)
            #expect(try storedContents(api.app).count == 1)
            // Another upload of the same bytes finds them stored: every chunk already received.
            let again = try await api.openUpload(bytes)
            #expect(again.status == 200)
            #expect(try again.decode(UploadState.self).received == [0, 1, 2])
        }
    }

    @Test("a chunk whose Content-Digest does not match is refused and not kept")
    func wrongChunkDigestRefused() async throws {
        try await SignedInApp.with(Self.small) { api in
            let bytes = testBytes(2500, seed: 2)
            let hash = SHA256.hex(of: bytes)
            #expect(try await api.openUpload(bytes).status == 201)
            let wrong = try await api.sendChunk(bytes[0..<1024], hash: hash, index: 0, digest: SHA256.digest(of: [UInt8]("other".utf8)))
            #expect(wrong.status == 422 && wrong.errorCode == "chunk_mismatch")
            let short = try await api.sendChunk(bytes[0..<1000], hash: hash, index: 0)
            #expect(short.status == 422 && short.errorCode == "chunk_mismatch")
            let state = try await api.send("GET", "/v1/uploads/\(hash)")
            #expect(try state.decode(UploadState.self).received == [])
            let missingDigest = try await api.send("PUT", "/v1/uploads/\(hash)/chunks/0", body: Data(bytes[0..<1024]))
            #expect(missingDigest.status == 400 && missingDigest.errorCode == "digest_required")
            #expect(try await api.sendChunk(bytes[0..<1024], hash: hash, index: 9).errorCode == "chunk_out_of_range")
        }
    }

    @Test("complete with bytes that do not hash to the upload's hash is refused and the upload discarded")
    func wrongWholeHashDiscarded() async throws {
        try await SignedInApp.with(Self.small) { api in
            let claimed = testBytes(1500, seed: 3)
            let sent = testBytes(1500, seed: 4)
            let hash = SHA256.hex(of: claimed)
            #expect(try await api.openUpload(claimed).status == 201)
            // Each chunk is what it says it is; the whole is not what the upload claimed.
            #expect(try await api.sendChunk(sent[0..<1024], hash: hash, index: 0).status == 204)
            #expect(try await api.sendChunk(sent[1024..<1500], hash: hash, index: 1).status == 204)
            let complete = try await api.send("POST", "/v1/uploads/\(hash)/complete")
            #expect(complete.status == 422 && complete.errorCode == "content_mismatch")
            #expect(try await api.send("GET", "/v1/uploads/\(hash)").status == 404)
            #expect(try storedContents(api.app).isEmpty)
            #expect(try api.app.count("SELECT count(*) FROM contents") == 0)
            let batch = try await api.putAttachment("a.bin", hash: hash)
            #expect(batch.status == 409 && batch.error?.code == "content_missing")
        }
    }

    @Test("an interrupted upload resumes: received lists the stored chunks, and only the rest is sent")
    func resumeFromReceived() async throws {
        try await SignedInApp.with(Self.small) { api in
            let bytes = testBytes(3 * 1024 + 100, seed: 5)
            let hash = SHA256.hex(of: bytes)
            #expect(try await api.openUpload(bytes).status == 201)
            #expect(try await api.sendChunk(bytes[0..<1024], hash: hash, index: 0).status == 204)
            #expect(try await api.sendChunk(bytes[2048..<3072], hash: hash, index: 2).status == 204)
            // The client was killed here; a new run asks where the upload stands.
            let reopened = try await api.openUpload(bytes)
            #expect(reopened.status == 200)
            #expect(try reopened.decode(UploadState.self).received == [0, 2])
            #expect(try await api.send("GET", "/v1/uploads/\(hash)").decode(UploadState.self).received == [0, 2])
            let early = try await api.send("POST", "/v1/uploads/\(hash)/complete")
            #expect(early.status == 409 && early.errorCode == "upload_incomplete")
            #expect(try await api.sendChunk(bytes[1024..<2048], hash: hash, index: 1).status == 204)
            #expect(try await api.sendChunk(bytes[3072...], hash: hash, index: 3).status == 204)
            #expect(try await api.send("POST", "/v1/uploads/\(hash)/complete").status == 201)
            let entry = try await api.putAttachment("big.bin", hash: hash)
            let fetched = try await api.send("GET", "/v1/attachments/\(entry.id)")
            #expect(fetched.status == 200 && Array(fetched.body) == bytes)
        }
    }

    @Test("an upload declared over max_attachment_bytes is refused with 413 before any byte is stored")
    func overSizeRefusedUpFront() async throws {
        try await SignedInApp.with(Self.small) { api in
            let response = try await api.send("POST", "/v1/uploads", json: UploadRequest(hash: String(repeating: "a", count: 64), size: 64 * 1024 + 1))
            #expect(response.status == 413 && response.errorCode == "attachment_too_large")
            #expect(try api.app.count("SELECT count(*) FROM uploads") == 0)
            let limits = try await api.send("GET", "/v1/limits").decode(ServerLimits.self)
            #expect(limits.maxAttachmentBytes == 64 * 1024 && limits.uploadChunkBytes == 1024 && limits.quotaBytes == nil)
        }
    }

    @Test("over the quota an upload answers 507 and nothing of it is stored")
    func quotaExceededStoresNothing() async throws {
        try await SignedInApp.with({ Self.small(&$0); $0.attachments.quotaBytes = 5000 }) { api in
            try await api.upload(testBytes(3000, seed: 6))
            let before = try storedContents(api.app)
            let over = try await api.openUpload(testBytes(2500, seed: 7))
            #expect(over.status == 507 && over.errorCode == "quota_exceeded")
            #expect(try api.app.count("SELECT count(*) FROM uploads") == 0)
            #expect(try api.app.count("SELECT count(*) FROM contents") == 1)
            let after = try storedContents(api.app)
            #expect(after.sorted() == before.sorted())
            // What fits still goes in.
            try await api.upload(testBytes(2000, seed: 8))
            #expect(try api.app.application.contents.usage(userID: 1) == 5000)
            #expect(try await api.send("GET", "/v1/limits").decode(ServerLimits.self).quotaBytes == 5000)
        }
    }

    @Test("a client that does not announce kinds never sees attachments (or notes it cannot write); one that does sees both")
    func oldClientsSeeNoAttachments() async throws {
        try await SignedInApp.with(Self.small) { api in
            let hash = try await api.upload(testBytes(100, seed: 9))
            let attachment = try await api.putAttachment("img/a.png", hash: hash)
            let note = try await api.send("PUT", "/v1/notes/\(NoteID())", body: try WireJSON.encoder().encode(PutNoteRequest(path: "a.md", content: "x")),
                                          headers: ["If-None-Match": "*", "Content-Type": "application/json"])
            #expect(note.status == 201)
            let upper = try await api.send("PUT", "/v1/notes/\(NoteID())", body: try WireJSON.encoder().encode(PutNoteRequest(path: "B.MARKDOWN", content: "y")),
                                           headers: ["If-None-Match": "*", "Content-Type": "application/json"])
            #expect(upper.status == 201)
            let old = try await api.send("GET", "/v1/changes").decode(ChangesPage.self)
            #expect(old.changes.map(\.path) == ["a.md"])
            let oldList = try await api.send("GET", "/v1/notes").decode(NoteListPage.self)
            #expect(oldList.notes.map(\.path) == ["a.md"])
            let new = try await api.send("GET", "/v1/changes", query: [("kinds", "note,attachment")]).decode(ChangesPage.self)
            #expect(new.changes.map(\.path) == ["img/a.png", "a.md", "B.MARKDOWN"])
            #expect(new.changes.first?.kind == .attachment && new.changes.first?.content == nil)
            #expect(new.cursor == old.cursor)
            let only = try await api.send("GET", "/v1/notes", query: [("kinds", "attachment")]).decode(NoteListPage.self)
            #expect(only.notes.map(\.id) == [attachment.id])
            #expect(try await api.send("GET", "/v1/changes", query: [("kinds", "folder")]).status == 400)
            // Search and rendering skip attachments.
            #expect(try await api.send("GET", "/v1/search", query: [("q", "img")]).decode(SearchResults.self).results.isEmpty)
            #expect(try await api.send("GET", "/v1/notes/\(attachment.id)/html").status == 404)
        }
    }

    @Test("paths are unique across notes and attachments under case folding, and an entry keeps its kind")
    func pathsUniqueAcrossKinds() async throws {
        try await SignedInApp.with(Self.small) { api in
            let hash = try await api.upload(testBytes(10, seed: 10))
            #expect(try await api.putAttachment("Photos/Cat.PNG", hash: hash).status == 201)
            let clash = try await api.putAttachment("photos/cat.png", hash: hash)
            #expect(clash.status == 409 && clash.error?.code == "path_taken")
            let note = NoteID()
            let created = try await api.send("POST", "/v1/batch", json: BatchRequest(operations: [
                BatchOperation(op: .put, id: note, path: "Readme.md", content: "hi", ifNoneMatch: "*"),
            ]))
            #expect(try created.decode(BatchResponse.self).results.first?.status == 201)
            // Another kind at the note's path (case-folded) is refused; so is turning the note into an attachment.
            let asNote = try await api.send("POST", "/v1/batch", json: BatchRequest(operations: [
                BatchOperation(op: .put, id: NoteID(), path: "README.MD", content: "other", ifNoneMatch: "*"),
            ]))
            #expect(try asNote.decode(BatchResponse.self).results.first?.error?.code == "path_taken")
            let turned = try await api.putAttachment("readme.txt", hash: hash, id: note, ifMatch: 2)
            #expect(turned.status == 422 && turned.error?.code == "kind_mismatch")
            // An attachment path on the notes endpoint, or a note path as an attachment: 4xx, nothing stored.
            let onNotes = try await api.send("PUT", "/v1/notes/\(NoteID())", body: try WireJSON.encoder().encode(PutNoteRequest(path: "x.png", content: "x")),
                                             headers: ["If-None-Match": "*", "Content-Type": "application/json"])
            #expect(onNotes.status == 400 && onNotes.errorCode == "invalid_path")
            #expect(try await api.putAttachment("x.md", hash: hash).status == 422)
            #expect(try await api.putAttachment("../x.png", hash: hash).status == 400)
        }
    }

    @Test("revisions of an attachment carry kind, hash, size and media type, never content; delete works by id")
    func attachmentRevisions() async throws {
        try await SignedInApp.with(Self.small) { api in
            let first = try await api.upload(testBytes(10, seed: 11))
            let second = try await api.upload(testBytes(20, seed: 12))
            let created = try await api.putAttachment("doc.pdf", hash: first)
            let id = created.id
            let changed = try await api.putAttachment("doc.pdf", hash: second, id: id, ifMatch: try #require(created.note?.rev))
            #expect(changed.status == 200 && changed.note?.size == 20)
            let revisions = try await api.send("GET", "/v1/notes/\(id)/revisions").decode(RevisionList.self).revisions
            #expect(revisions.map(\.hash) == [second, first])
            #expect(revisions.allSatisfy { $0.kind == .attachment && $0.mediaType == "application/pdf" && $0.content == nil })
            let one = try await api.send("GET", "/v1/notes/\(id)/revisions/\(revisions[1].rev)").decode(RevisionResource.self)
            #expect(one.content == nil && one.size == 10)
            let deleted = try await api.send("POST", "/v1/batch", json: BatchRequest(operations: [
                BatchOperation(op: .delete, id: id, ifMatch: try #require(changed.note?.rev)),
            ]))
            #expect(try deleted.decode(BatchResponse.self).results.first?.note?.deleted == true)
            #expect(try await api.send("GET", "/v1/attachments/\(id)").status == 404)
            // The trash lists it only to a client that announces attachments.
            #expect(try await api.send("GET", "/v1/trash").decode(TrashPage.self).notes.isEmpty)
            let trash = try await api.send("GET", "/v1/trash", query: [("kinds", "note,attachment")]).decode(TrashPage.self)
            #expect(trash.notes.map(\.id) == [id] && trash.notes.first?.lastRev == changed.note?.rev)
        }
    }

    @Test("a purge keeps content that is held or referenced by a live entry or kept revision, and removes the rest")
    func purgeKeepsHeldAndReferenced() async throws {
        // The access token must outlive the days the clock is moved on.
        try await SignedInApp.with({ Self.small(&$0); $0.lifetimes.accessSeconds = 7 * 86_400 }) { api in
            let live = try await api.upload(testBytes(10, seed: 20))
            let revisionOnly = try await api.upload(testBytes(11, seed: 21))
            let held = try await api.upload(testBytes(12, seed: 22))
            let orphan = try await api.upload(testBytes(13, seed: 23))
            _ = try await api.putAttachment("live.png", hash: live)
            let replaced = try await api.putAttachment("old.png", hash: revisionOnly)
            _ = try await api.putAttachment("old.png", hash: live, id: replaced.id, ifMatch: try #require(replaced.note?.rev))
            let stale = testBytes(2000, seed: 24)
            #expect(try await api.openUpload(stale).status == 201)
            #expect(try await api.sendChunk(stale[0..<1024], hash: SHA256.hex(of: stale), index: 0).status == 204)
            // Nothing goes while the holds of the uploads last.
            #expect(try api.app.application.contents.purge().contents == 0)
            api.app.clock.advance(seconds: 2 * 3600)
            // Told present again now: held for the batch that will refer to it.
            #expect(try await api.send("POST", "/v1/content/missing", json: ContentMissingRequest(hashes: [held])).decode(ContentMissingResponse.self).missing == [])
            let purged = try api.app.application.contents.purge()
            #expect(purged.contents == 1 && purged.uploads == 0)
            let stored = Set(try storedContents(api.app).map { String($0.split(separator: "/").last ?? "") })
            #expect(stored == [live, revisionOnly, held])
            #expect(try await api.send("GET", "/v1/content/\(orphan)").status == 404)
            #expect(try await api.send("GET", "/v1/content/\(revisionOnly)").status == 200)
            // A day later the unfinished upload goes too, and the hold has run out.
            api.app.clock.advance(seconds: 86_400)
            let later = try api.app.application.contents.purge()
            #expect(later.uploads == 1 && later.contents == 1)
            #expect(try await api.send("GET", "/v1/uploads/\(SHA256.hex(of: stale))").status == 404)
            #expect(!FileManager.default.fileExists(atPath: api.app.databasePath + ".content/uploads/1/\(SHA256.hex(of: stale))"))
        }
    }
}
