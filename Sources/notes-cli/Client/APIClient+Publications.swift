import Foundation
import NotesCore

/// The published-note endpoints (`notes publish`, `unpublish`, `published`).
extension APIClient {
    /// `POST /v1/notes/{id}/publication`: a new link for the note (an older one stops working).
    ///
    /// Retried like an idempotent request: a second attempt only replaces a link whose answer
    /// never arrived, which nobody can hold.
    func publish(_ id: NoteID, _ request: CreatePublicationRequest) async throws -> PublicationResource {
        try await json(PublicationResource.self, try APIRequest.json("POST", "/v1/notes/\(id.value)/publication", request, idempotent: true))
    }

    /// `DELETE /v1/notes/{id}/publication`: the link stops working at once.
    func unpublish(_ id: NoteID) async throws {
        _ = try await send(APIRequest("DELETE", "/v1/notes/\(id.value)/publication"))
    }

    /// `GET /v1/publications`: the live publications, without their links.
    func publications() async throws -> [PublicationResource] {
        try await json(PublicationList.self, APIRequest("GET", "/v1/publications")).publications
    }
}
