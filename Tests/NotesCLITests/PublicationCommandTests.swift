import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// `notes publish`, `notes published` and `notes unpublish` through the real binaries, with the
/// link opened the way a reader without an account opens it: a plain GET, no token.
@Suite("Publishing notes from the command line")
struct PublicationCommandTests {
    /// A GET without credentials, as a browser of someone without an account sends it.
    static func open(_ link: String) async throws -> (status: Int, response: HTTPURLResponse, text: String) {
        let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: link)))
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, http, String(decoding: data, as: UTF8.self))
    }

    @Test("publish prints the full link, the page shows the note to anyone; published lists it; unpublish makes it 404")
    func publishListUnpublish() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            try await harness.createNotes([("trips/lisbon.md", "# Lisbon\n\nTrams and *tiles*.\n"), ("diary.md", "Private.\n")])

            let published = try await harness.notes(["publish", "trips/lisbon.md", "--expires", "7d"])
            #expect(published.exitCode == 0, "\(published.stderr)")
            let link = published.stdout.trimmingCharacters(in: .newlines)
            #expect(link.hasPrefix(harness.serverURL + "/p/") && link.count == harness.serverURL.count + 3 + 43 && !link.contains("\n"))
            #expect(published.stderr.contains("Published trips/lisbon.md until 20") && published.stderr.contains("only time"))

            let page = try await Self.open(link)
            #expect(page.status == 200)
            #expect(page.text.contains("<h1 id=\"lisbon\">Lisbon</h1>") && page.text.contains("Trams and <em>tiles</em>."))
            #expect(!page.text.contains("diary") && page.text.contains("noindex"))

            let tsv = try await harness.notes(["published"])
            #expect(tsv.exitCode == 0)
            let fields = tsv.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
            #expect(fields.count == 1 && fields.first?.count == 4)
            #expect(fields.first?.first == "trips/lisbon.md" && fields.first?.last == "no")
            #expect(fields.first?[2].hasPrefix("20") == true, "the expiry is shown")
            let token = String(link.suffix(43))
            #expect(!tsv.stdout.contains(token))

            let json = try await harness.notes(["published", "--json"])
            let list = try WireJSON.decoder().decode(PublicationList.self, from: Data(json.stdout.utf8))
            #expect(list.publications.map(\.path) == ["trips/lisbon.md"] && list.publications[0].token == nil)

            let unpublished = try await harness.notes(["unpublish", "trips/lisbon.md"])
            #expect(unpublished.exitCode == 0, "\(unpublished.stderr)")
            #expect(try await Self.open(link).status == 404)
            #expect(try await harness.notes(["published"]).stdout.isEmpty)
            let twice = try await harness.notes(["unpublish", "trips/lisbon.md"])
            #expect(twice.exitCode == 1 && twice.stderr.contains("is not published"))

            // The server's request log names the page, never the link's secret.
            #expect(try await waitUntil { harness.logCount("GET /p/<token> 404") == 1 })
            #expect(harness.logCount(token) == 0)
        }
    }

    @Test("--indexable drops noindex; publishing a missing note fails with exit 1 and a bad --expires is a usage error")
    func indexableAndRefusals() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            try await harness.createNotes([("open.md", "Index me.\n")])
            let published = try await harness.notes(["publish", "open.md", "--indexable"])
            #expect(published.exitCode == 0, "\(published.stderr)")
            #expect(published.stderr.contains("until you revoke it"))
            let page = try await Self.open(published.stdout.trimmingCharacters(in: .newlines))
            #expect(page.status == 200 && page.text.contains("Index me.") && !page.text.contains("noindex"))
            #expect(page.response.value(forHTTPHeaderField: "X-Robots-Tag") == nil)

            let missing = try await harness.notes(["publish", "nope.md"])
            #expect(missing.exitCode == 1 && missing.stderr.contains("no note at nope.md") && missing.stdout.isEmpty)
            #expect(try await harness.notes(["publish", "open.md", "--expires", "soon"]).exitCode == 2)
            #expect(try await harness.notes(["publish"]).exitCode == 2)
        }
    }
}
