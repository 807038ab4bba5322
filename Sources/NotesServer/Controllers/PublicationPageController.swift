import NotesCore

/// `/p/<token>`: a published note, for anyone holding the link, without signing in.
///
/// Every answer is an HTML page (see `PublicationPage`): the note, or the one 404 page for any
/// link that does not work, or a 429 page; except the images the note embeds, answered with
/// their bytes under the attachments' safety headers (`/p/:token/a/*path`). Each client address gets its own allowance of
/// `/p/` requests (`ServerConfiguration.publicationRequestsPerMinute`), on top of the server's
/// general request rate, so a page can be read and shared but not scraped or probed quickly.
struct PublicationPageController: Sendable {
    let store: PublicationStore
    /// The owner's entries and contents, for the attachments a published note embeds.
    let notes: NoteStore
    let contents: ContentStore
    let rateLimiter: RequestRateLimiter
    /// Where a large note is rendered, off the connection threads, within its owner's share.
    let renderWorker: RenderWorker

    func register(in router: inout Router) {
        router.add("GET", "/p/:token", access: .open) { try page($0) }
        router.add("GET", "/p/:token/a/*path", access: .open) { try .now(attachment($0)) }
    }

    private func page(_ context: RequestContext) throws -> HTTPOutcome {
        if let refusal = admit(context.request) { return .now(refusal) }
        guard let token = context.parameters["token"], let note = try store.publishedNote(token: token) else {
            return .now(PublicationPage.notFound)
        }
        // Rendered at each read rather than kept: the links depend on the token (images go through
        // it), reads are rate-limited, and cmark renders a page in tens of microseconds. A large
        // note is rendered on the worker, counted against its owner's share, so strangers opening
        // large published notes at once never hold every connection thread.
        let render: @Sendable () throws -> HTTPResponse = { [notes] in
            try PublicationPage.published(note, token: token, rendering: notes.rendering, paths: { try notes.livePaths(userID: note.userID) })
        }
        guard !RenderWorker.rendersInline(note.content, with: notes.rendering) else { return .now(try render()) }
        return .later { [renderWorker] in
            do {
                return try await renderWorker.run(for: note.userID, render)
            } catch let refusal as HTTPError {
                return PublicationPage.busy(refusal)
            } catch {
                return PublicationPage.busy(HTTPError(503, code: "busy", message: "busy", headers: ["Retry-After": "1"]))
            }
        }
    }

    /// An attachment the published note embeds, addressed as `PublicationLinks` writes it.
    ///
    /// Served only when the publication is live and the address names a path the note's current
    /// text embeds as an image (`PublicationLinks.embeddedPaths`): an address can reach no other
    /// file of the account, and guessing one tells nothing (every refusal is the one 404 page).
    /// The file is answered as the attachments API answers it (fixed media type, `nosniff`,
    /// `sandbox`, a download for anything a browser could run), and rate-limited like the page.
    private func attachment(_ context: RequestContext) throws -> HTTPResponse {
        if let refusal = admit(context.request) { return refusal }
        let upText = context.request.query["up"] ?? "0"
        guard let token = context.parameters["token"], let relative = context.parameters["path"],
              upText.utf8.count <= 4, let up = Int(upText), let note = try store.publishedNote(token: token),
              let path = PublicationLinks.folderPath(ofAttachment: relative, up: up, from: note.path),
              try PublicationLinks(notePath: note.path, token: token)
                .embeddedPaths(of: note.content, rendering: notes.rendering, ownerPaths: { try notes.livePaths(userID: note.userID) })
                .contains(path),
              let entry = try notes.list(userID: note.userID, after: nil, limit: 1, path: path.joined(separator: "/"),
                                         kinds: .kinds([.attachment])).first,
              var response = try ContentResponse.attachment(entry, userID: note.userID, contents: contents, request: context.request) else {
            return PublicationPage.notFound
        }
        response.headers["Referrer-Policy"] = "no-referrer"
        if !note.indexable { response.headers["X-Robots-Tag"] = "noindex" }
        return response
    }

    /// The 429 page when `request`'s address has used up its allowance, else nil.
    private func admit(_ request: HTTPRequest) -> HTTPResponse? {
        do {
            try rateLimiter.admit(request.remoteAddress)
            return nil
        } catch {
            return PublicationPage.tooManyRequests(error)
        }
    }
}
