import NotesCore

/// Who may call an API route: declared with the route (`add(_:_:access:)`), and checked from
/// the declaration alone, the same way for a request and for its head's body admission.
extension Router {
    enum Access: Sendable {
        /// No token needed (login, health, limits, the API document).
        case open
        /// Any valid token.
        case read
        /// A token allowed to write (sessions and `write` personal tokens).
        case write

        /// The scope a caller's token needs; `nil` for a route that takes no token.
        var requiredScope: TokenScope? {
            switch self {
            case .open: nil
            case .read: .read
            case .write: .write
            }
        }

        /// Refuses a caller whose token's scope is narrower than the route needs.
        /// - Throws: 403 `insufficient_scope`.
        func admit(_ principal: Principal) throws(HTTPError) {
            if requiredScope == .write, principal.scope != .write { throw HTTPError.insufficientScope }
        }
    }
}

extension Router.Route {
    /// The caller of `request` as the route's access asks for it: `nil` for an open route, else
    /// the bearer token's principal, with a scope the route takes.
    /// - Throws: 401 for a missing or dead token, 403 for one whose scope is too narrow.
    func caller(of request: HTTPRequest, authenticator: TokenAuthenticator) throws -> Principal? {
        guard access.requiredScope != nil else { return nil }
        let principal = try authenticator.authenticate(request)
        try access.admit(principal)
        return principal
    }

    /// The context the handler runs with: the caller the route's access asks for, and for a route
    /// that reads the note named by `:id` (`readsNote`), that note read together with the token.
    func context(for request: HTTPRequest, parameters: [String: String],
                 authenticator: TokenAuthenticator) throws -> RequestContext {
        var context = RequestContext(request: request, parameters: parameters)
        guard readsNote, access.requiredScope != nil, let id = parameters["id"].flatMap(NoteID.init) else {
            context.principal = try caller(of: request, authenticator: authenticator)
            return context
        }
        let read = try authenticator.authenticate(request, readingNote: id)
        try access.admit(read.principal)
        context.principal = read.principal
        context.noteReadAhead = NoteReadAhead(id: id, note: read.note, answer: read.answer)
        return context
    }
}
