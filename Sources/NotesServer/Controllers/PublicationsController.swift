import NotesCore

/// `/v1/notes/{id}/publication` and `/v1/publications`: the owner's side of published notes.
///
/// Publishing answers the link once (`url`, `token`); the server keeps only the token's digest,
/// so the list shows which notes are published but never their links. Publishing a note that
/// already has a link replaces it: the old link stops working at once, which is also how an
/// owner withdraws a link that went further than meant while keeping the note public.
struct PublicationsController: Sendable {
    let store: PublicationStore

    func register(in router: inout Router) {
        router.add("POST", "/v1/notes/:id/publication", access: .write) { try .now(publish($0)) }
        router.add("DELETE", "/v1/notes/:id/publication", access: .write) { try .now(revoke($0)) }
        router.add("GET", "/v1/publications", access: .read) { context in
            let list = try store.list(userID: try context.caller().userID).map { $0.resource() }
            return .now(.wire(PublicationList(publications: list)))
        }
    }

    private func publish(_ context: RequestContext) throws -> HTTPResponse {
        let caller = try context.caller()
        let id = try context.noteID()
        // Every field is optional, so no body at all means the defaults.
        let body = context.request.body.isEmpty ? CreatePublicationRequest() : try context.decode(CreatePublicationRequest.self)
        if let seconds = body.expiresIn, !(1...PublicationStore.maxLifetimeSeconds).contains(seconds) {
            throw HTTPError.badRequest("The field \"expires_in\" must be from 1 to \(PublicationStore.maxLifetimeSeconds) seconds; leave it out for a link that lasts until revoked.",
                                       code: "invalid_json")
        }
        try checkWithinCreator(caller, expiresIn: body.expiresIn)
        let (record, token) = try store.publish(userID: caller.userID, noteID: id, expiresInSeconds: body.expiresIn,
                                                indexable: body.indexable ?? false)
        var response = HTTPResponse.wire(record.resource(token: token), status: 201)
        // The link is in this body and nowhere else: no cache may keep a copy.
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// A link made with an expiring personal token may not outlive it, as a token made with one
    /// may not: otherwise a short-lived token could leave behind a permanent way to read a
    /// note's future text. A session is the owner signed in, and may publish for any time.
    /// - Throws: 403 `exceeds_creator`, never a silently shortened link.
    private func checkWithinCreator(_ caller: Principal, expiresIn: Int?) throws(HTTPError) {
        guard caller.sessionID == nil, let creatorExpiry = caller.tokenExpiresAt else { return }
        let now = store.clock.now()
        let remaining = max(0, Int((creatorExpiry - now) / 1000))
        guard let expiresIn, expiresIn <= remaining else {
            throw HTTPError(403, code: "exceeds_creator",
                            message: "A link made with a personal token cannot outlive it: ask for an \"expires_in\" of at most \(remaining) seconds.")
        }
    }

    private func revoke(_ context: RequestContext) throws -> HTTPResponse {
        let caller = try context.caller()
        guard try store.revoke(userID: caller.userID, noteID: try context.noteID()) else {
            throw HTTPError.notFound("This note is not published.", code: "not_published")
        }
        return .noContent()
    }
}
