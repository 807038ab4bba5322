import NotesCore

/// The pages of a shared space, `/s/<space id>/…`: the personal space's pages again, on the
/// space's notes (docs/architecture.md §3.5, §6.5).
///
/// What differs is decided here, before a page's handler runs: `SpaceAccess` gives the account's
/// grant (none is one 404 page, whether the space exists or not), a viewer's form that would
/// change something is refused (403), and the handler gets the session acting in the space,
/// whose `userID` is the space's, so no page can reach another space's notes. The page's own
/// addresses are led into the space (`WebSpaceLinks`), a redirect's too.
extension WebApp {
    func respond(to request: HTTPRequest, inSpace spaceID: Int64, page: String, session: BrowserSession?) throws -> HTTPOutcome {
        let (route, parameters) = try route(method: request.method, path: page)
        guard let session else { return .now(Self.signInRedirect(for: request)) }
        let (acting, space) = try actingSession(session, in: spaceID, method: request.method, page: page)
        let outcome = try self.route(request, to: route, parameters: parameters, session: acting, space: space).answered(by: route.series)
        guard let space else { return outcome }
        let links = WebSpaceLinks(base: space.base)
        switch outcome {
        case .now(let response):
            return .now(Self.inside(links, response))
        case .later(let work):
            return .later { Self.inside(links, await work()) }
        }
    }

    /// `session` acting in `spaceID`, and the space as its pages show it (nil for the account's
    /// own space, whose pages are the personal ones).
    /// - Throws: the one 404 without a grant; 403 for a viewer's request that would write.
    func actingSession(_ session: BrowserSession, in spaceID: Int64, method: String, page: String) throws -> (session: BrowserSession, space: WebSpace?) {
        guard let grant = try services.spaceAccess.grant(account: session.userID, space: spaceID) else { throw WebSpace.notFound }
        guard !grant.personal else { return (session, nil) }
        if !grant.role.writes && !Self.onlyReads(method: method, page: page) { throw WebSpace.readOnly }
        guard let resource = try services.spaces.list(account: session.userID).first(where: { $0.id == spaceID && $0.deletedAt == nil }) else {
            throw WebSpace.notFound
        }
        return (session.acting(in: grant), WebSpace(resource))
    }

    /// Whether a request is a reader's: a GET of a page that is not only a form that writes (the
    /// editor, new note, rename, upload), or the editor's preview (a POST that only renders).
    private static func onlyReads(method: String, page: String) -> Bool {
        switch method {
        case "GET", "HEAD":
            !(page == "/new" || page == "/upload" || page.hasSuffix("/edit") || page.hasSuffix("/rename"))
        case "POST":
            page == "/preview"
        default:
            false
        }
    }

    /// A redirect to a page of the space stays in the space.
    private static func inside(_ links: WebSpaceLinks, _ response: HTTPResponse) -> HTTPResponse {
        guard (300..<400).contains(response.status), let location = response.headers["Location"] else { return response }
        var moved = response
        moved.headers["Location"] = links.rewrite(location: location)
        return moved
    }
}

extension WebSpace {
    /// Every page of a space the account cannot reach: one answer whether the space exists or
    /// not, so nothing tells a non-member it is there.
    static let notFound = HTTPError.notFound("There is no such space, or you are not a member of it.")

    /// A viewer's form that would change the space.
    static let readOnly = HTTPError(403, code: "read_only_space", message: "You are a viewer of this space: you may read it but not change it.")
}

extension BrowserSession {
    /// The session acting in the space `grant` lets it reach: the space's notes are held under
    /// the space's id, and what it writes records the account as the author.
    func acting(in grant: SpaceGrant) -> BrowserSession {
        guard grant.spaceID != userID else { return self }
        var acting = BrowserSession(sessionID: sessionID, userID: grant.spaceID, username: username, cookieSecret: cookieSecret)
        acting.memberID = userID
        return acting
    }
}
