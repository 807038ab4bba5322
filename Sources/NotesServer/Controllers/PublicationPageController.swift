import NotesCore

/// `/p/<token>`: a published note, for anyone holding the link, without signing in.
///
/// Every answer is an HTML page (see `PublicationPage`): the note, or the one 404 page for any
/// link that does not work, or a 429 page. Each client address gets its own allowance of
/// `/p/` requests (`ServerConfiguration.publicationRequestsPerMinute`), on top of the server's
/// general request rate, so a page can be read and shared but not scraped or probed quickly.
struct PublicationPageController: Sendable {
    let store: PublicationStore
    let rateLimiter: RequestRateLimiter
    let renderer = MarkdownRenderer.safe

    func register(in router: inout Router) {
        router.add("GET", "/p/:token", access: .open) { try .now(page($0)) }
        router.add("GET", "/p/:token/a/*path", access: .open) { try .now(attachment($0)) }
    }

    private func page(_ context: RequestContext) throws -> HTTPResponse {
        if let refusal = admit(context.request) { return refusal }
        guard let token = context.parameters["token"], let note = try store.publishedNote(token: token) else {
            return PublicationPage.notFound
        }
        // Rendered at each read rather than kept: the links depend on the token (images go through
        // it), reads are rate-limited, and cmark renders a page in tens of microseconds.
        return PublicationPage.published(note, token: token, renderer: renderer)
    }

    /// An attachment the published note embeds, addressed as `PublicationLinks` writes it.
    ///
    /// The seam for attachments: until the server stores them, every such address answers the
    /// 404 page. Serving one will take: the live publication (`store.publishedNote`, extended to
    /// name its owner internally); the folder path the address names
    /// (`PublicationLinks.folderPath(ofAttachment: path, up: query "up", from: note.path)`);
    /// that path being one the note's current text embeds (its images, resolved by
    /// `PublicationLinks`), so an address can reach no other file of the account; and the
    /// attachment answered with the attachments' own safety headers, rate-limited like the page.
    private func attachment(_ context: RequestContext) throws -> HTTPResponse {
        if let refusal = admit(context.request) { return refusal }
        return PublicationPage.notFound
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
