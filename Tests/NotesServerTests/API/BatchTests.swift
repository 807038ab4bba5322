import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// `POST /v1/batch`: many writes in one request, each judged on its own.
@Suite("Notes API: batch")
struct BatchTests {
    @Test func mixedOperationsAnswerPerOperationStatusesInOrderAndFailuresDoNotBlockOthers() async throws {
        try await LiveServer.with { _, api in
            let x = try await api.create("x.md", "x1")
            let y = try await api.create("y.md", "y1")
            let newID = NoteID(), clashID = NoteID(), badPathID = NoteID(), unguardedID = NoteID()
            let request = BatchRequest(operations: [
                BatchOperation(op: .put, id: newID, path: "new.md", content: "fresh", ifNoneMatch: "*"),
                BatchOperation(op: .put, id: x.id, path: "x.md", content: "x2", ifMatch: x.rev + 100),
                BatchOperation(op: .delete, id: y.id, ifMatch: y.rev),
                BatchOperation(op: .put, id: unguardedID, path: "u.md", content: "u"),
                BatchOperation(op: .put, id: badPathID, path: "../escape.md", content: "e", ifNoneMatch: "*"),
                BatchOperation(op: .put, id: clashID, path: "NEW.md", content: "clash", ifNoneMatch: "*"),
                BatchOperation(op: .put, id: x.id, path: "x.md", content: "x3", ifMatch: x.rev),
            ])
            let response = try await api.send("POST", "/v1/batch", json: request)
            #expect(response.status == 200)
            let results = try response.decode(BatchResponse.self).results
            #expect(results.map(\.id) == request.operations.map(\.id))
            #expect(results.map(\.status) == [201, 412, 200, 428, 400, 409, 200])
            #expect(results[0].note?.path == "new.md" && results[0].error == nil)
            #expect(results[1].error?.code == "precondition_failed")
            #expect(results[1].note?.content == "x1", "a stale operation carries the current note")
            #expect(results[2].note?.deleted == true)
            #expect(results[3].error?.code == "precondition_required")
            #expect(results[4].error?.code == "invalid_path")
            #expect(results[5].error?.code == "path_taken")
            #expect(results[6].note?.hash == SHA256.hex(of: "x3"))

            let fresh = try await api.send("GET", "/v1/notes/\(newID)").decode(NoteResource.self)
            #expect(fresh.content == "fresh")
            #expect(try await api.send("GET", "/v1/notes/\(y.id)").status == 404)
            #expect(try await api.send("GET", "/v1/notes/\(clashID)").status == 404)
            #expect(try await api.send("GET", "/v1/notes/\(x.id)").decode(NoteResource.self).content == "x3")
        }
    }

    @Test("a batch answers the feed cursors just before and after its writes: they chain to the next batch, the feed between holds exactly its writes, and a batch that wrote nothing names none")
    func batchAnswersTheFeedSpanOfItsWrites() async throws {
        try await LiveServer.with { _, api in
            let x = try await api.create("x.md", "x1")
            let start = try await api.send("GET", "/v1/changes").decode(ChangesPage.self).cursor
            let first = BatchRequest(operations: [
                BatchOperation(op: .put, id: NoteID(), path: "a.md", content: "a", ifNoneMatch: "*"),
                BatchOperation(op: .put, id: x.id, path: "x.md", content: "stale", ifMatch: x.rev + 100),
                BatchOperation(op: .put, id: x.id, path: "x.md", content: "x2", ifMatch: x.rev),
            ])
            let one = try await api.send("POST", "/v1/batch?omit=content", json: first).decode(BatchResponse.self)
            #expect(one.results.map(\.status) == [201, 412, 200])
            #expect(one.cursorBefore == start)
            let after = try #require(one.cursorAfter)
            let between = try await api.send("GET", "/v1/changes", query: [("since", start)]).decode(ChangesPage.self)
            #expect(between.cursor == after && !between.hasMore)
            #expect(Set(between.changes.map(\.id)) == [first.operations[0].id, x.id])
            #expect(Set(between.changes.map(\.rev)) == Set(one.results.compactMap { $0.status == 412 ? nil : $0.note?.rev }))

            let deleteA = BatchRequest(operations: [BatchOperation(op: .delete, id: first.operations[0].id, ifMatch: one.results[0].note?.rev ?? 0)])
            let two = try await api.send("POST", "/v1/batch", json: deleteA).decode(BatchResponse.self)
            #expect(two.results.map(\.status) == [200])
            #expect(two.cursorBefore == after, "the next batch starts where the last ended")
            #expect(two.cursorAfter == (try await api.send("GET", "/v1/changes", query: [("since", after)]).decode(ChangesPage.self).cursor))

            let nothing = BatchRequest(operations: [BatchOperation(op: .put, id: x.id, path: "x.md", content: "x9", ifMatch: x.rev)])
            let three = try await api.send("POST", "/v1/batch", json: nothing).decode(BatchResponse.self)
            #expect(three.results.map(\.status) == [412])
            #expect(three.cursorBefore == nil && three.cursorAfter == nil)
        }
    }

    @Test("a batch's writes take the account's next revision numbers one after another (a refused operation takes none), and the write after the batch takes the next")
    func batchWritesNumberOnFromTheAccountsCounter() async throws {
        try await LiveServer.with { _, api in
            let x = try await api.create("x.md", "x1")
            let y = try await api.create("y.md", "y1")
            let start = try await api.send("GET", "/v1/changes").decode(ChangesPage.self).cursor
            let request = BatchRequest(operations: [
                BatchOperation(op: .put, id: NoteID(), path: "a.md", content: "a", ifNoneMatch: "*"),
                BatchOperation(op: .put, id: x.id, path: "x.md", content: "stale", ifMatch: x.rev + 100),
                BatchOperation(op: .put, id: x.id, path: "x.md", content: "x2", ifMatch: x.rev),
                BatchOperation(op: .delete, id: y.id, ifMatch: y.rev),
            ])
            let answer = try await api.send("POST", "/v1/batch", json: request).decode(BatchResponse.self)
            #expect(answer.results.map(\.status) == [201, 412, 200, 200])
            #expect([answer.results[0], answer.results[2], answer.results[3]].map { $0.note?.rev } == [y.rev + 1, y.rev + 2, y.rev + 3])
            let next = try await api.create("z.md", "z1")
            #expect(next.rev == y.rev + 4, "the counter the batch stored is its last write's number")
            let feed = try await api.send("GET", "/v1/changes", query: [("since", start)]).decode(ChangesPage.self)
            #expect(feed.changes.map(\.rev).sorted() == [y.rev + 1, y.rev + 2, y.rev + 3, y.rev + 4])
        }
    }

    @Test func omitContentAnswersAppliedWritesWithMetadataAndStaleOnesWithTheWholeCurrentNote() async throws {
        try await LiveServer.with { _, api in
            let x = try await api.create("x.md", "x1")
            let y = try await api.create("y.md", "y1")
            let newID = NoteID()
            let request = BatchRequest(operations: [
                BatchOperation(op: .put, id: newID, path: "new.md", content: "fresh", ifNoneMatch: "*"),
                BatchOperation(op: .put, id: x.id, path: "x.md", content: "x2", ifMatch: x.rev + 100),
                BatchOperation(op: .put, id: y.id, path: "y2.md", content: "y2", ifMatch: y.rev),
            ])
            let response = try await api.send("POST", "/v1/batch?omit=content", json: request)
            #expect(response.status == 200)
            let results = try response.decode(BatchResponse.self).results
            #expect(results.map(\.status) == [201, 412, 200])
            #expect(results[0].note?.content == nil && results[0].note?.hash == SHA256.hex(of: "fresh"))
            #expect(results[0].note?.path == "new.md" && results[0].note?.rev ?? 0 > 0)
            #expect(results[1].note?.content == "x1", "a stale write's current note is needed whole, to merge")
            #expect(results[2].note?.content == nil && results[2].note?.path == "y2.md")
            #expect(try await api.send("GET", "/v1/notes/\(newID)").decode(NoteResource.self).content == "fresh")

            let unknown = try await api.send("POST", "/v1/batch?omit=path", json: BatchRequest(operations: []))
            #expect(unknown.status == 400)
            #expect(unknown.errorCode == "invalid_parameter")
        }
    }

    @Test func batchOverTheOperationLimitIs413() async throws {
        try await LiveServer.with { _, api in
            let limits = try await api.send("GET", "/v1/limits").decode(ServerLimits.self)
            let operations = (0...limits.maxBatchOperations).map { _ in BatchOperation(op: .delete, id: NoteID(), ifMatch: 1) }
            let response = try await api.send("POST", "/v1/batch", json: BatchRequest(operations: operations))
            #expect(response.status == 413)
            #expect(response.isErrorBody)
            #expect(try await api.send("GET", "/v1/changes").decode(ChangesPage.self).changes.isEmpty)
        }
    }

    @Test func malformedBatchesAre400() async throws {
        try await LiveServer.with { _, api in
            let bodies = [
                #"{}"#,
                #"{"operations": {}}"#,
                #"{"operations": [{"op": "patch", "id": "\#(NoteID())"}]}"#,
                #"{"operations": [{"op": "put", "id": "not-a-uuid", "path": "a.md", "content": "", "if_none_match": "*"}]}"#,
                #"{"operations": [{"op": "delete", "id": "\#(NoteID())", "if_match": "one"}]}"#,
            ]
            for body in bodies {
                let response = try await api.send("POST", "/v1/batch", body: Data(body.utf8))
                #expect(response.status == 400, "\(body)")
                #expect(response.errorCode == "invalid_json", "\(body)")
            }
            let empty = try await api.send("POST", "/v1/batch", json: BatchRequest(operations: []))
            #expect(empty.status == 200)
            #expect(try empty.decode(BatchResponse.self).results.isEmpty)
        }
    }
}
