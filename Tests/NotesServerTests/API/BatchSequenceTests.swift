import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// `POST /v1/batch` decides each operation against the notes as the batch's earlier operations
/// left them, exactly as the same requests one by one would, on either backend (PostgreSQL
/// decides them all first and writes them in a few statements at the end, `NoteBatch`).
@Suite("Notes API: a batch's operations in sequence")
struct BatchSequenceTests {
    @Test func laterOperationsSeeEarlierOnesAndTheFeedHasEveryRevisionInOrder() async throws {
        try await LiveServer.with { _, api in
            let a = try await api.create("a.md", "a1")
            let b = try await api.create("b.md", "b1")
            let c = try await api.create("c.md", "c1")
            let gone = try await api.delete(try await api.create("t.md", "t1"))
            let base = gone.rev
            let n1 = NoteID(), n2 = NoteID(), n3 = NoteID(), n4 = NoteID(), n5 = NoteID()
            let request = BatchRequest(operations: [
                // A new note, then changed in the same batch.
                BatchOperation(op: .put, id: n1, path: "n.md", content: "n1", ifNoneMatch: "*"),
                BatchOperation(op: .put, id: n1, path: "n.md", content: "n2", ifMatch: base + 1),
                // A rename gives its path up; a new note takes it, cased otherwise.
                BatchOperation(op: .put, id: a.id, path: "moved.md", content: "a1", ifMatch: a.rev),
                BatchOperation(op: .put, id: n2, path: "A.md", content: "n", ifNoneMatch: "*"),
                // A path taken under case folding, by a note from before and by one renamed here.
                BatchOperation(op: .put, id: n3, path: "B.md", content: "x", ifNoneMatch: "*"),
                BatchOperation(op: .put, id: n5, path: "Moved.md", content: "x", ifNoneMatch: "*"),
                // Stale, against a stored note and against this batch's own write.
                BatchOperation(op: .put, id: b.id, path: "b.md", content: "b2", ifMatch: b.rev + 50),
                BatchOperation(op: .put, id: n1, path: "n.md", content: "n3", ifMatch: base + 1),
                // A delete frees a path for a new note; a note created here is deleted here.
                BatchOperation(op: .delete, id: c.id, ifMatch: c.rev),
                BatchOperation(op: .put, id: n4, path: "C.md", content: "c", ifNoneMatch: "*"),
                BatchOperation(op: .delete, id: n2, ifMatch: base + 4),
                // A retried create changes nothing; a tombstone comes back; an unknown note is missing.
                BatchOperation(op: .put, id: n1, path: "n.md", content: "n2", ifNoneMatch: "*"),
                BatchOperation(op: .put, id: gone.id, path: "t.md", content: "t2", ifMatch: gone.rev),
                BatchOperation(op: .delete, id: NoteID(), ifMatch: 1),
                // The deleted note's path is free again, and a note deleted twice is deleted once.
                BatchOperation(op: .put, id: n3, path: "a.md", content: "x", ifNoneMatch: "*"),
                BatchOperation(op: .delete, id: c.id, ifMatch: base + 5),
            ])
            let results = try await api.send("POST", "/v1/batch", json: request).decode(BatchResponse.self).results
            #expect(results.map(\.status) == [201, 200, 200, 201, 409, 409, 412, 412, 200, 201, 200, 200, 201, 404, 201, 200])
            #expect(results.map { $0.note?.rev ?? 0 } == [base + 1, base + 2, base + 3, base + 4, 0, 0, b.rev, base + 2,
                                                          base + 5, base + 6, base + 7, base + 2, base + 8, 0, base + 9, base + 5])
            #expect(results[4].error?.code == "path_taken" && results[5].error?.code == "path_taken")
            #expect(results[6].note?.content == "b1", "a stale write carries the stored note whole")
            #expect(results[7].note?.content == "n2", "and the batch's own earlier write when it made the note current")
            #expect(results[12].note?.path == "t.md" && results[12].note?.deleted == false)

            // Every write is in the feed once, in the order it was made; nothing skipped.
            let feed = try await api.send("GET", "/v1/changes").decode(ChangesPage.self).changes
            #expect(feed.map { "\($0.path)@\($0.rev)\($0.deleted ? "-" : "")" } == [
                "b.md@\(b.rev)", "n.md@\(base + 2)", "moved.md@\(base + 3)", "c.md@\(base + 5)-", "C.md@\(base + 6)",
                "A.md@\(base + 7)-", "t.md@\(base + 8)", "a.md@\(base + 9)",
            ])
            #expect(try await api.send("GET", "/v1/notes/\(n1)").decode(NoteResource.self).content == "n2")
            #expect(try await api.send("GET", "/v1/notes/\(gone.id)").decode(NoteResource.self).content == "t2")
            #expect(try await api.send("GET", "/v1/notes/\(a.id)").decode(NoteResource.self).path == "moved.md")
            let history = try await api.send("GET", "/v1/notes/\(n1)/revisions").decode(RevisionList.self)
            #expect(history.revisions.map(\.rev) == [base + 2, base + 1])
        }
    }

    @Test func aBatchOfManyNewNotesAnswersEachWithItsOwnRevisionAndAllAreStored() async throws {
        try await LiveServer.with { _, api in
            let operations = (0..<300).map { index in
                BatchOperation(op: .put, id: NoteID(), path: "folder/note \(index) \"q\" {braces}, NULL é.md",
                               content: "note \(index)\nNULL, {\"a\": \\}\u{0}", ifNoneMatch: "*")
            }
            let results = try await api.send("POST", "/v1/batch", json: BatchRequest(operations: operations))
                .decode(BatchResponse.self).results
            #expect(results.map(\.status) == Array(repeating: 201, count: 300))
            #expect(results.map { $0.note?.rev ?? 0 } == Array(1...300))
            for index in [0, 150, 299] {
                let note = try await api.send("GET", "/v1/notes/\(operations[index].id)").decode(NoteResource.self)
                #expect(note.path == operations[index].path && note.content == operations[index].content)
            }
        }
    }
}
