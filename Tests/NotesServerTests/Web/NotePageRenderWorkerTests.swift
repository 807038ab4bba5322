import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The web app's note page renders a large note on the render worker, not on the connection
/// thread that took the request: a hostile note's page waits for the worker, every other page
/// answers meanwhile.
@Suite("Web: note pages on the render worker")
struct NotePageRenderWorkerTests {
    @Test("a large note's page waits for the render worker while other pages answer, then shows the note")
    func largeNotePageRendersOnTheWorker() async throws {
        try await SignedInApp.with { api in
            let pages = try await ServerRenderingFixture.make(api)
            let line = "Some *emphasis*, a [[link]], `code` and #tags, [x](y \"z\") over and over. "
            let large = "# Large\n\n" + String(repeating: line, count: RenderWorker.inlineBytes / line.utf8.count + 10)
            let big = try api.app.addNote("big.md", large)
            let small = try api.app.addNote("small.md", "# Small\n")
            let worker = api.app.application.responder.web.services.renderWorker
            let gate = RenderWorkerTests.Gate()
            let holding = Task { try await worker.run(for: -1) { gate.hold() } }
            #expect(try await waitUntil { gate.started })

            let bigPage = Task { await pages.browser.get("/notes/\(big)") }
            #expect(try await waitUntil { worker.inFlight == 2 }, "the large note's page is queued on the worker")
            let smallPage = await pages.browser.get("/notes/\(small)")
            #expect(smallPage.status == 200 && smallPage.body.contains("<h1 id=\"small\">Small</h1>"),
                    "another note's page answers while the worker is busy")
            #expect(await pages.browser.get("/").status == 200)

            gate.release()
            #expect(try await holding.value == "held")
            let answered = await bigPage.value
            #expect(answered.status == 200 && answered.body.contains("<h1 id=\"large\">Large</h1>"))
            #expect(answered.body.contains("<em>emphasis</em>"))
        }
    }
}
