import Foundation
import NotesCore
import Testing
@testable import NotesServer

/// `GET /v1/notes/{id}/metadata` gives what a note says about itself, as its pages read it.
@Suite("Server rendering: note metadata")
struct NoteMetadataTests {
    @Test("metadata carries the front matter's title and aliases and every tag, front matter and inline, each once")
    func metadataCarriesTitleTagsAndAliases() async throws {
        try await SignedInApp.with { api in
            let id = try api.app.addNote("projects/plan.md", """
                ---
                title: The plan
                aliases: [Plan, "Le plan"]
                tags: [work, project/alpha]
                ---
                # A heading that is not the title

                Tagged #work and #idea, not `#code`.

                """)
            let metadata = try await Self.metadata(api, id)
            #expect(metadata.title == "The plan")
            #expect(metadata.aliases == ["Plan", "Le plan"])
            #expect(metadata.tags == ["work", "project/alpha", "idea"])
            #expect(metadata.id == id && metadata.rev > 0)
        }
    }

    @Test("without front matter the title is the first heading, else the file name; a missing note is 404")
    func metadataTitleFallsBackToHeadingThenFileName() async throws {
        try await SignedInApp.with { api in
            let headed = try api.app.addNote("a/Héading note.md", "Intro.\n\n## Первый заголовок\n")
            let bare = try api.app.addNote("a/بدون عنوان.md", "No heading here.\n")
            #expect(try await Self.metadata(api, headed).title == "Первый заголовок")
            let plain = try await Self.metadata(api, bare)
            #expect(plain.title == "بدون عنوان" && plain.tags.isEmpty && plain.aliases.isEmpty)
            let missing = await api.app.send("GET", "/v1/notes/\(NoteID())/metadata", token: api.token)
            #expect(missing.status == 404)
        }
    }

    private static func metadata(_ api: SignedInApp, _ id: NoteID) async throws -> NoteMetadata {
        let response = await api.app.send("GET", "/v1/notes/\(id)/metadata", token: api.token)
        try #require(response.status == 200, "metadata answered \(response.status): \(response.text)")
        return try WireJSON.decoder().decode(NoteMetadata.self, from: response.body)
    }
}
