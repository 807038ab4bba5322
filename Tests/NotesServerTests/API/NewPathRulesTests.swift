import Foundation
import NotesCore
import Testing
@testable import NotesServer

/// Spoofable names (text-direction controls, invisible characters, segments with outer
/// spaces) are refused for new paths, over real HTTP, while notes already stored under such a
/// path keep working.
@Suite("Notes API: new paths refuse spoofable names")
struct NewPathRulesTests {
    @Test("creating a note at a path with a direction control, an invisible character or an outer space answers 400 invalid_path")
    func createRefusesSpoofableNames() async throws {
        try await withAPIServer { _, api in
            let cases: [(path: String, says: String)] = [
                ("invoice\u{202E}dm.exe.md", "U+202E RIGHT-TO-LEFT OVERRIDE"),
                ("pass\u{200B}words.md", "U+200B ZERO WIDTH SPACE"),
                ("work /plan.md", "starts or ends with a space"),
            ]
            for (path, says) in cases {
                let response = try await api.put(NoteID(), path: path, content: "# x\n", headers: ["If-None-Match": "*"])
                #expect(response.status == 400, "\(path.debugDescription) answered \(response.status)")
                #expect(response.errorCode == "invalid_path")
                #expect(response.text.contains(says), "\(response.text)")
            }
            let joined = try await api.create("family \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}.md", "# Joiners stay allowed\n")
            #expect(joined.path.unicodeScalars.contains("\u{200D}"))
            let list = try await api.send("GET", "/v1/notes")
            #expect(try list.decode(NoteListPage.self).notes.map(\.path) == [joined.path])
        }
    }

    @Test("renaming onto a spoofable path answers 400 and keeps the note as it was")
    func renameRefusesSpoofableNames() async throws {
        try await withAPIServer { _, api in
            let note = try await api.create("report.md", "# Report\n")
            let response = try await api.put(note.id, path: "report\u{2066}.md", content: "# Report\n",
                                             headers: ["If-Match": "\"\(note.rev)\""])
            #expect(response.status == 400)
            #expect(response.errorCode == "invalid_path")
            let current = try await api.send("GET", "/v1/notes/\(note.id)").decode(NoteResource.self)
            #expect(current.path == "report.md" && current.rev == note.rev)
        }
    }

    @Test("in a batch, an operation with a spoofable new path fails alone with 400 invalid_path")
    func batchRefusesOnlyTheSpoofableOperation() async throws {
        try await withAPIServer { _, api in
            let good = NoteID(), bad = NoteID()
            let response = try await api.send("POST", "/v1/batch", json: BatchRequest(operations: [
                BatchOperation(op: .put, id: bad, path: "\u{FEFF}bom.md", content: "# x\n", ifNoneMatch: "*"),
                BatchOperation(op: .put, id: good, path: "fine.md", content: "# y\n", ifNoneMatch: "*"),
            ]))
            #expect(response.status == 200)
            let results = try response.decode(BatchResponse.self).results
            #expect(results.map(\.status) == [400, 201])
            #expect(results.first?.error?.code == "invalid_path")
            #expect(try await api.send("GET", "/v1/notes/\(bad)").status == 404)
        }
    }

    @Test("a note stored under such a path before the rule can still be read, updated, renamed away and deleted")
    func storedPathsKeepWorking() async throws {
        try await withAPIServer { server, api in
            let note = try await api.create("plain.md", "# Old\n")
            // What an older server stored: the same note under a path the rule now refuses.
            let legacy = try NotePath("old\u{202E}name .md")
            #expect(legacy.newNoteProblem != nil)
            let database = try DirectDatabase(server.databaseLocation)
            try database.db.run("UPDATE notes SET path = ?, path_key = ? WHERE id = ?", legacy.value, legacy.collisionKey, note.id.value)
            database.close()

            let read = try await api.send("GET", "/v1/notes/\(note.id)")
            #expect(read.status == 200)
            #expect(try read.decode(NoteResource.self).path == legacy.value)
            let updated = try await api.update(try read.decode(NoteResource.self), content: "# New\n")
            #expect(updated.path == legacy.value)
            let stillThere = try await api.update(updated, content: "# Newer\n")
            let deleted = try await api.delete(stillThere)
            #expect(deleted.deleted)
            // Restoring the deleted note at its own stored path is not a new path either.
            let restore = try await api.put(note.id, path: legacy.value, content: "# Back\n", headers: ["If-Match": "\"\(deleted.rev)\""])
            #expect(restore.status == 201, "\(restore.text)")
            let restored = try restore.decode(NoteResource.self)
            #expect(!restored.deleted && restored.path == legacy.value)
            let renamed = try await api.update(restored, path: "clean.md", content: "# Back\n")
            #expect(renamed.path == "clean.md")
        }
    }
}
