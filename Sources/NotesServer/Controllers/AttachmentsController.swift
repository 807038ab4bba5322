import NotesCore

/// `GET /v1/attachments/{id}`: an attachment's current bytes, served safely.
///
/// The media type comes from the fixed table by extension, never from the bytes
/// (`MediaType.forPath`); plain images and PDF are shown inline, everything else (HTML, SVG,
/// XML, JavaScript, anything unknown) is a download. Every answer is `nosniff` and under
/// `Content-Security-Policy: sandbox`, so even an HTML attachment opened directly runs no script
/// with the server's origin. Range requests work as for `GET /v1/content/{hash}`.
struct AttachmentsController: Sendable {
    let notes: NoteStore
    let contents: ContentStore

    func register(in router: inout Router) {
        router.add("GET", "/v1/attachments/:id", access: .read) { try .now(download($0)) }
    }

    private func download(_ context: RequestContext) throws -> HTTPResponse {
        let user = try context.caller().userID
        guard let entry = try notes.note(userID: user, id: try context.noteID()), entry.kind == .attachment else {
            throw HTTPError.notFound("There is no attachment with this id.")
        }
        guard !entry.deleted else { throw HTTPError.notFound("The attachment was deleted.", code: "note_deleted") }
        guard let response = try ContentResponse.attachment(entry, userID: user, contents: contents, request: context.request) else {
            throw HTTPError.contentNotFound
        }
        return response
    }
}
