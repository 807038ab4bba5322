import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// `GET /v1/trash` says each deleted entry's kind, as stored, so a client tells a deleted image
/// from a deleted note without guessing from the path.
@Suite("Trash entries carry their kind")
struct TrashKindTests {
    @Test("each trash entry has kind note or attachment on the wire")
    func trashEntriesCarryTheirKind() async throws {
        try await SignedInApp.with { api in
            let image = try await WebAttachmentTests.attach(api, "img/chart.png", WebAttachmentTests.png)
            let noteID = try api.app.addNote("docs/Guide.markdown", "# Guide\n")
            let note = try #require(try api.app.note(noteID))
            let deleted = try await api.send("POST", "/v1/batch", json: BatchRequest(operations: [
                BatchOperation(op: .delete, id: image.id, ifMatch: try #require(image.note?.rev)),
                BatchOperation(op: .delete, id: noteID, ifMatch: note.rev),
            ])).decode(BatchResponse.self)
            #expect(deleted.results.allSatisfy { $0.status == 200 }, "\(deleted.results)")

            let response = try await api.send("GET", "/v1/trash", query: [("kinds", "note,attachment")])
            #expect(response.status == 200)
            let raw = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            let entries = try #require(raw["notes"] as? [[String: Any]])
            let kinds = Dictionary(uniqueKeysWithValues: entries.compactMap { entry in
                (entry["path"] as? String).map { ($0, entry["kind"] as? String ?? "absent") }
            })
            #expect(kinds == ["img/chart.png": "attachment", "docs/Guide.markdown": "note"])
        }
    }
}
