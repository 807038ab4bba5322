import Foundation
import NotesTestSupport
import Testing

/// What a person sees who points a browser at the server.
@Suite("Home page")
struct HomePageTests {
    @Test("GET / answers a small HTML page naming the product and linking to the API document, not a JSON 404")
    func homePageNamesTheProductAndLinksTheAPI() async throws {
        try await LiveServer.with { _, api in
            var anonymous = api
            anonymous.token = nil
            let page = try await anonymous.send("GET", "/")
            #expect(page.status == 200)
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(page.text.contains("<h1>Notes</h1>"))
            #expect(page.text.contains("href=\"/v1/openapi.json\""))
            #expect(try await anonymous.send("GET", "//").status == 404, "only the root itself is the page")
        }
    }
}
