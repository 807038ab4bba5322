import NotesCore

/// `/p/<token>`: a published note, for anyone holding the link, without signing in.
///
/// Every answer is an HTML page (see `PublicationPage`): the note, or the one 404 page for any
/// link that does not work, or a 429 page; except the images the note embeds, answered with
/// their bytes under the attachments' safety headers (`/p/:token/a/*path`). Another published note
/// of the owner that the page links to is read under the same link (`/p/:token/n/:link`, its
/// images under `/p/:token/n/:link/a/*path`). Each client address gets its own allowance of
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
        router.add("GET", "/p/:token/n/:link", access: .open) { try page($0) }
        router.add("GET", "/p/:token/n/:link/a/*path", access: .open) { try .now(attachment($0)) }
    }

    /// The note a `/p/` address names, with where its links lead: the publication's own note
    /// (`/p/<token>`), or another published note of the owner it links to (`/p/<token>/n/<link>`,
    /// `PublicationStore+Links.swift`); nil for anything else, whatever the reason.
    private func published(_ context: RequestContext) throws -> (note: PublishedNote, links: PublicationLinks)? {
        guard let token = context.parameters["token"] else { return nil }
        let link = context.parameters["link"]
        let found: PublishedNote?
        if let link {
            found = try store.linkedNote(token: token, linkID: link)
        } else {
            found = try store.publishedNote(token: token)
        }
        guard let note = found else { return nil }
        let published = try store.publishedNotes(userID: note.userID)
        return (note, PublicationLinks(notePath: note.path, token: token, linkID: link, publishedNotes: published))
    }

    private func page(_ context: RequestContext) throws -> HTTPOutcome {
        if let refusal = admit(context.request) { return .now(refusal) }
        guard let found = try published(context) else { return .now(PublicationPage.notFound) }
        let (note, links) = found
        // Rendered at each read rather than kept: the links depend on the token (images go through
        // it), reads are rate-limited, and cmark renders a page in tens of microseconds. A large
        // note is rendered on the worker, counted against its owner's share, so strangers opening
        // large published notes at once never hold every connection thread.
        let render: @Sendable () throws -> HTTPResponse = { [notes] in
            try PublicationPage.published(note, links: links, rendering: notes.rendering, paths: { try notes.livePaths(userID: note.userID) })
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
        guard let relative = context.parameters["path"], upText.utf8.count <= 4, let up = Int(upText),
              let found = try published(context),
              let path = PublicationLinks.folderPath(ofAttachment: relative, up: up, from: found.note.path),
              try found.links.embeddedPaths(of: found.note.content, rendering: notes.rendering,
                                            ownerPaths: { try notes.livePaths(userID: found.note.userID) }).contains(path),
              let entry = try notes.list(userID: found.note.userID, after: nil, limit: 1, path: path.joined(separator: "/"),
                                         kinds: .kinds([.attachment])).first,
              var response = try ContentResponse.attachment(entry, userID: found.note.userID, contents: contents, request: context.request) else {
            return PublicationPage.notFound
        }
        response.headers["Referrer-Policy"] = "no-referrer"
        if !found.note.indexable { response.headers["X-Robots-Tag"] = "noindex" }
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
