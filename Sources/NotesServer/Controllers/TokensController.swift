import NotesCore

/// `/v1/tokens`: the caller's personal access tokens for scripts.
///
/// Managing tokens is a write, whatever the method: listing them shows what can act for the
/// account, and a read-only token must not mint itself a stronger one. So every route needs a
/// session or a `write` token; a `read` token gets 403 `insufficient_scope`. A token made with a
/// personal token can neither do more nor live longer than it (403 `exceeds_creator`), so a
/// short-lived token cannot mint a permanent one.
struct TokensController: Sendable {
    let tokens: PersonalTokenStore

    func register(in router: inout Router) {
        router.add("GET", "/v1/tokens", access: .write) { context in
            let caller = try context.caller()
            let list = try tokens.list(userID: caller.userID).map { $0.resource() }
            return .now(.wire(PersonalTokenList(tokens: list)))
        }
        router.add("POST", "/v1/tokens", access: .write) { context in
            let caller = try context.caller()
            let body = try context.decode(CreateTokenRequest.self)
            guard Label.isValid(body.name) else {
                throw HTTPError.badRequest("The field \"name\" must be 1 to \(Label.maxCharacters) characters, without control characters.",
                                           code: "invalid_json")
            }
            if let seconds = body.expiresIn, !(1...PersonalTokenStore.maxLifetimeSeconds).contains(seconds) {
                throw HTTPError.badRequest("The field \"expires_in\" must be from 1 to \(PersonalTokenStore.maxLifetimeSeconds) seconds; leave it out for a token that lasts until revoked.",
                                           code: "invalid_json")
            }
            // A personal token's caller is held to that token's scope and lifetime.
            let (record, secret) = try tokens.create(userID: caller.userID, name: body.name, scope: body.scope, expiresInSeconds: body.expiresIn,
                                                     creatorTokenID: caller.sessionID == nil ? caller.tokenID : nil)
            var response = HTTPResponse.wire(record.resource(secret: secret), status: 201)
            // The secret is in this body and nowhere else: no cache may keep a copy (RFC 6749 §5.1).
            response.headers["Cache-Control"] = "no-store"
            return .now(response)
        }
        router.add("DELETE", "/v1/tokens/:id", access: .write) { context in
            let caller = try context.caller()
            guard let id = context.parameters["id"], try tokens.revoke(userID: caller.userID, id: id) else {
                throw HTTPError.notFound("You have no personal token with this id.", code: "token_not_found")
            }
            return .now(.noContent())
        }
    }
}
