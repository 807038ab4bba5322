import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Tombstone retention read from the injected clock: a deletion is kept exactly as long as the
/// retention says, then purged, and older cursors must resync; no waiting involved.
@Suite("Tombstones are purged by the server's clock")
struct TombstonePurgeClockTests {
    @Test("a tombstone survives a purge until its retention has passed, then a cursor from before it gets 410")
    func tombstoneIsPurgedAfterItsRetention() async throws {
        try await TestApp.with { (app: TestApp) async throws in
            let token = try await app.signIn().accessToken
            let id = NoteID()
            let created = try await app.send("PUT", "/v1/notes/\(id)", json: PutNoteRequest(path: "doomed.md", content: "goes"),
                                             token: token, headers: ["If-None-Match": "*"])
            let note = try created.decode(NoteResource.self)
            let deleted = await app.send("DELETE", "/v1/notes/\(id)", token: token, headers: ["If-Match": "\"\(note.rev)\""])
            #expect(deleted.status == 200)
            let retention: Int64 = 90 * 86_400_000
            // A device that synced the create but not the delete.
            let cursor = ["since": String(note.rev)]

            app.clock.advance(seconds: 90 * 86_400)
            try app.application.notes.purgeTombstones(olderThanMilliseconds: retention)
            let kept = await app.send("GET", "/v1/changes", query: cursor, token: try await app.signIn().accessToken)
            #expect(kept.status == 200, "kept for the whole retention")

            app.clock.advance(seconds: 1)
            try app.application.notes.purgeTombstones(olderThanMilliseconds: retention)
            let gone = await app.send("GET", "/v1/changes", query: cursor, token: try await app.signIn().accessToken)
            #expect(gone.status == 410 && gone.errorCode == "resync_required")
        }
    }
}
