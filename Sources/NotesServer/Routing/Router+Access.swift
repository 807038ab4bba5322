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
    /// For a route in a space, the caller acts in the space (`Principal.acting(in:)`) once
    /// `SpaceAccess` granted it: 404 for a non-member, 403 `read_only_space` for a viewer on a
    /// route that writes.
    func caller(of request: HTTPRequest, parameters: [String: String], authenticator: TokenAuthenticator,
                spaces: SpaceAccess?) throws -> Principal? {
        guard access.requiredScope != nil else { return nil }
        let principal = try authenticator.authenticate(request)
        try access.admit(principal)
        guard inSpace else { return principal }
        let grant = try Self.grant(of: principal.userID, in: parameters, spaces: spaces)
        if access == .write { try grant.admit(.editor) }
        return principal.acting(in: grant)
    }

    /// What `account` may do in the space the `:space` parameter names.
    /// - Throws: `SpaceError.notFound` for a malformed id and for a space `account` may not reach.
    static func grant(of account: Int64, in parameters: [String: String], spaces: SpaceAccess?) throws -> SpaceGrant {
        guard let spaces, let spaceID = parameters["space"].flatMap(RequestContext.spaceID(from:)),
              let grant = try spaces.grant(account: account, space: spaceID)
        else { throw SpaceError.notFound }
        return grant
    }

    /// The context the handler runs with: the caller the route's access asks for, and for a route
    /// that reads the note named by `:id` (`readsNote`), that note read together with the token.
    func context(for request: HTTPRequest, parameters: [String: String],
                 authenticator: TokenAuthenticator, spaces: SpaceAccess?) throws -> RequestContext {
        var context = RequestContext(request: request, parameters: parameters)
        guard readsNote, access.requiredScope != nil, let id = parameters["id"].flatMap(NoteID.init) else {
            context.principal = try caller(of: request, parameters: parameters, authenticator: authenticator, spaces: spaces)
            if inSpace, let account = context.principal?.accountID {
                // A held long poll asks again each time it wakes: a removal ends it.
                context.recheckAccess = { _ = try Self.grant(of: account, in: parameters, spaces: spaces) }
            }
            return context
        }
        let read = try authenticator.authenticate(request, readingNote: id)
        try access.admit(read.principal)
        context.principal = read.principal
        context.noteReadAhead = NoteReadAhead(id: id, note: read.note, answer: read.answer)
        return context
    }
}
