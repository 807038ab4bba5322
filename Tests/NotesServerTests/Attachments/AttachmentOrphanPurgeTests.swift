import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Content objects in the bucket that no row names, as a crash between storing one and
/// committing its row leaves them: the purge removes them after its grace period, and never one
/// a row may still come to name. On the S3 pass (`Tests/s3/run.sh`) only: the other stores keep
/// a content and its row together.
@Suite("Attachments: orphaned objects in the bucket", .enabled(if: TestContentStore.isS3, "needs the S3 pass (NOTES_TEST_CONTENT_STORE=s3)"))
struct AttachmentOrphanPurgeTests {
    @Test("the purge removes a content object no row names once past its grace period; a younger one, one an open upload may record, and referenced ones stay")
    func purgeRemovesOrphanedObjects() async throws {
        try await SignedInApp.with(AttachmentUploadTests.small) { api in
            let live = try await api.upload(testBytes(10, seed: 30))
            _ = try await api.putAttachment("live.png", hash: live)
            let s3 = try #require((api.app.application.contents.blobs as? SwitchingBlobStore)?.current as? S3BlobStore)
            let liveKey = try #require(try storedContents(api.app).first)
            let userID = try #require(Int64(liveKey.split(separator: "/")[0]))
            let orphan = testBytes(20, seed: 31)
            try s3.bucket.put(s3.contentKey(userID: userID, hash: SHA256.hex(of: orphan)), bytes: orphan, label: "an orphan")
            // An open upload: the object of its content may be what it records when it completes.
            let pending = testBytes(2000, seed: 32)
            #expect(try await api.openUpload(pending).status == 201)
            try s3.bucket.put(s3.contentKey(userID: userID, hash: SHA256.hex(of: pending)), bytes: pending, label: "an upload's content")
            let all = Set([live, SHA256.hex(of: orphan), SHA256.hex(of: pending)])

            // Within the grace period (a day) nothing of them goes: a row may be about to name them.
            try api.app.application.contents.purge()
            #expect(Set(try storedContents(api.app).map { String($0.split(separator: "/").last ?? "") }) == all)

            // Past a grace period of a second (the store's times have whole seconds): the orphan goes.
            try await Task.sleep(for: .seconds(2.5))
            var contents = api.app.application.contents
            contents.orphanGraceSeconds = 1
            try contents.purge()
            #expect(Set(try storedContents(api.app).map { String($0.split(separator: "/").last ?? "") }) == [live, SHA256.hex(of: pending)])
            #expect(try await api.send("GET", "/v1/content/\(live)").status == 200)
        }
    }
}
