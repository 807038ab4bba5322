import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The web trash lists what `notes trash` lists, deleted notes and deleted files alike, and
/// brings back either.
@Suite("Web trash")
struct WebTrashTests {
    /// Deletes the entry through the API's batch, as `notes sync` does after a local delete.
    private static func deleteThroughAPI(_ api: SignedInApp, _ id: NoteID, rev: Int64) async throws {
        let response = try await api.send("POST", "/v1/batch", json: BatchRequest(operations: [BatchOperation(op: .delete, id: id, ifMatch: rev)]))
        try #require(response.status == 200)
        try #require(try response.decode(BatchResponse.self).results.first?.status == 200)
    }

    @Test("a deleted file is listed beside a deleted note, and Undelete brings the file back with its content")
    func deletedFileIsListedAndRestored() async throws {
        try await SignedInApp.with { api in
            let bytes = testBytes(5000, seed: 12)
            let put = try await WebAttachmentTests.attach(api, "Pictures/garden.png", bytes)
            let file = try #require(put.note)
            try await Self.deleteThroughAPI(api, file.id, rev: file.rev)
            let noteID = try api.app.addNote("Old idea.md", "gone\n")
            let note = try #require(try api.app.note(noteID))
            try await Self.deleteThroughAPI(api, noteID, rev: note.rev)

            let browser = WebBrowser(api.app)
            try await browser.signIn()
            let trash = await browser.get("/trash")
            #expect(trash.body.contains("<span class=\"title\">garden.png</span> <span class=\"muted small\">file · 4 KB · Pictures/garden.png · deleted "))
            #expect(trash.body.contains("<span class=\"title\">Old idea</span> <span class=\"muted small\">note · Old idea.md · deleted "))
            #expect(trash.body.contains("action=\"/trash/\(file.id)/restore\""), "the file has an Undelete button")

            let tombstone = try #require(try api.app.note(file.id))
            let restored = await browser.post("/trash/\(file.id)/restore", [("csrf", try #require(trash.field("csrf"))), ("rev", String(tombstone.rev))])
            #expect(restored.status == 303 && restored.header("Location") == "/trash?done=restored-file", "\(restored.status): \(restored.body)")
            let live = try #require(try api.app.note(file.id))
            #expect(!live.deleted && live.kind == .attachment && live.path == "Pictures/garden.png")
            #expect(live.hash == SHA256.hex(of: bytes))
            let served = await browser.fetch("/files/Pictures/garden.png")
            #expect(served.status == 200 && served.body == Data(bytes), "the file's content is back")
            let after = await browser.get("/trash", query: ["done": "restored-file"])
            #expect(after.body.contains("The file was brought back.") && !after.body.contains("garden.png"))
        }
    }

    @Test("a deleted file whose name is a script payload is listed as text")
    func hostileFileNameIsEscaped() async throws {
        try await SignedInApp.with { api in
            let name = "<img src=x onerror=window.pwned=1>.png"
            let file = try #require(try await WebAttachmentTests.attach(api, "x/" + name, testBytes(10, seed: 3)).note)
            try await Self.deleteThroughAPI(api, file.id, rev: file.rev)
            let browser = WebBrowser(api.app)
            try await browser.signIn()
            let trash = await browser.get("/trash")
            #expect(trash.body.contains("&lt;img src=x onerror=window.pwned=1&gt;.png"), "the name is shown as text")
            #expect(!trash.body.contains("<img src=x"), "and never as markup")
        }
    }
}
