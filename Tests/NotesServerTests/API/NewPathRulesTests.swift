import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The embedding, override and isolate controls are refused for new paths, over real HTTP,
/// while every name a script needs is stored byte-exact and notes already stored under a
/// refused path keep working.
@Suite("Notes API: new paths refuse only direction overrides")
struct NewPathRulesTests {
    @Test("creating a note at a path with an embedding, override or isolate control answers 400 invalid_path naming it")
    func createRefusesDirectionOverrides() async throws {
        try await LiveServer.with { _, api in
            let cases: [(path: String, says: String)] = [
                ("invoice\u{202E}dm.exe.md", "U+202E RIGHT-TO-LEFT OVERRIDE"),
                ("a\u{202A}b.md", "U+202A LEFT-TO-RIGHT EMBEDDING"),
                ("dir\u{2067}/b.md", "U+2067 RIGHT-TO-LEFT ISOLATE"),
            ]
            for (path, says) in cases {
                let response = try await api.put(NoteID(), path: path, content: "# x\n", headers: ["If-None-Match": "*"])
                #expect(response.status == 400, "\(path.debugDescription) answered \(response.status)")
                #expect(response.errorCode == "invalid_path")
                #expect(response.text.contains(says), "\(response.text)")
            }
        }
    }

    @Test("names with zero-width spaces, joiners, direction marks and outer spaces are created and listed byte-exact", arguments: [
        "km/\u{179A}\u{17B6}\u{1794}\u{17CB}\u{200B}\u{1796}\u{17B6}\u{1780}\u{17D2}\u{1799}.md",  // Khmer, ZWSP
        "\u{0E20}\u{0E32}\u{0E29}\u{0E32}\u{200B}\u{0E44}\u{0E17}\u{0E22}.md",  // Thai, ZWSP
        "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}.md",  // Persian, ZWNJ
        "\u{0915}\u{094D}\u{200D}\u{0937}.md",  // Hindi, ZWJ
        "family \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}.md",  // emoji ZWJ sequence
        "\u{05E9}\u{05DC}\u{05D5}\u{05DD}\u{200F} 2026.md",  // Hebrew with a right-to-left mark
        "work /plan.md", "\u{FEFF}bom.md",
    ])
    func createKeepsNamesScriptsNeed(_ path: String) async throws {
        try await LiveServer.with { _, api in
            let created = try await api.create(path, "# x\n")
            #expect(Array(created.path.utf8) == Array(path.utf8))
            let list = try await api.send("GET", "/v1/notes")
            #expect(try list.decode(NoteListPage.self).notes.map { Array($0.path.utf8) } == [Array(path.utf8)])
            let renamed = try await api.update(created, path: "x/" + path, content: "# y\n")
            #expect(Array(renamed.path.utf8) == Array(("x/" + path).utf8), "a rename onto such a name is allowed too")
        }
    }

    @Test("renaming onto a spoofable path answers 400 and keeps the note as it was")
    func renameRefusesSpoofableNames() async throws {
        try await LiveServer.with { _, api in
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
        try await LiveServer.with { _, api in
            let good = NoteID(), bad = NoteID()
            let response = try await api.send("POST", "/v1/batch", json: BatchRequest(operations: [
                BatchOperation(op: .put, id: bad, path: "\u{202D}lro.md", content: "# x\n", ifNoneMatch: "*"),
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
        try await LiveServer.with { server, api in
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
