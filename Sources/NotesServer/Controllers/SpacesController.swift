import NotesCore

/// `/v1/spaces`: the caller's spaces and their members (docs/architecture.md §6.5). Reading is
/// for every member; changing the space or its members is for its owner, leaving for any other
/// member. `SpaceStore` asks `SpaceAccess` for each decision; a space the caller may not reach
/// answers 404 `space_not_found`, whether or not it exists.
///
/// The space's notes are under `/v1/spaces/{space}/…`, the same routes as `/v1/notes…`
/// (`Router.addSpaceRoutes()`).
struct SpacesController: Sendable {
    let spaces: SpaceStore
    /// Where a purged space's contents are removed from.
    let blobs: any BlobStore

    func register(in router: inout Router) {
        router.add("GET", "/v1/spaces", access: .read) { context in
            .now(.wire(SpaceList(spaces: try spaces.list(account: try context.caller().userID))))
        }
        router.add("POST", "/v1/spaces", access: .write) { context in
            let body = try context.decode(SpaceNameRequest.self)
            return .now(.wire(try spaces.create(account: try context.caller().userID, name: body.name), status: 201))
        }
        router.add("GET", "/v1/spaces/:space", access: .read) { context in
            .now(.wire(try spaces.space(try context.spaceID(), account: try context.caller().userID)))
        }
        router.add("PATCH", "/v1/spaces/:space", access: .write) { context in
            let body = try decode(SpaceNameRequest.self, in: context)
            return .now(.wire(try spaces.rename(account: try context.caller().userID, space: try context.spaceID(), to: body.name)))
        }
        router.add("DELETE", "/v1/spaces/:space", access: .write) { context in
            try spaces.delete(account: try context.caller().userID, space: try context.spaceID())
            return .now(.noContent())
        }
        router.add("POST", "/v1/spaces/:space/restore", access: .write) { context in
            .now(.wire(try spaces.restore(account: try context.caller().userID, space: try context.spaceID())))
        }
        router.add("POST", "/v1/spaces/:space/purge", access: .write) { context in
            try spaces.purge(account: try context.caller().userID, space: try context.spaceID(), blobs: blobs)
            return .now(.noContent())
        }
        router.add("POST", "/v1/spaces/:space/transfer", access: .write) { context in
            let username = try Self.username(in: try decode(SpaceMemberRequest.self, in: context))
            return .now(.wire(try spaces.transfer(account: try context.caller().userID, space: try context.spaceID(), to: username)))
        }
        router.add("POST", "/v1/spaces/:space/leave", access: .write) { context in
            try spaces.leave(account: try context.caller().userID, space: try context.spaceID())
            return .now(.noContent())
        }
        router.add("GET", "/v1/spaces/:space/members", access: .read) { context in
            let members = try spaces.members(account: try context.caller().userID, space: try context.spaceID())
            return .now(.wire(SpaceMemberList(members: members)))
        }
        router.add("POST", "/v1/spaces/:space/members", access: .write) { context in
            let body = try decode(SpaceMemberRequest.self, in: context)
            let member = try spaces.add(account: try context.caller().userID, space: try context.spaceID(),
                                        username: try Self.username(in: body), role: try Self.role(in: body))
            return .now(.wire(member, status: 201))
        }
        router.add("PATCH", "/v1/spaces/:space/members/:username", access: .write) { context in
            let role = try Self.role(in: try decode(SpaceMemberRequest.self, in: context))
            let member = try spaces.setRole(account: try context.caller().userID, space: try context.spaceID(),
                                            username: context.parameters["username"] ?? "", role: role)
            return .now(.wire(member))
        }
        router.add("DELETE", "/v1/spaces/:space/members/:username", access: .write) { context in
            try spaces.remove(account: try context.caller().userID, space: try context.spaceID(),
                              username: context.parameters["username"] ?? "")
            return .now(.noContent())
        }
    }

    /// The body of a request on the space `:space`, read only once the caller is known to be a
    /// member: a non-member gets 404 whatever they sent.
    private func decode<T: Decodable>(_ type: T.Type, in context: RequestContext) throws -> T {
        _ = try spaces.space(try context.spaceID(), account: try context.caller().userID)
        return try context.decode(type)
    }

    private static func username(in body: SpaceMemberRequest) throws(HTTPError) -> String {
        guard let username = body.username, !username.isEmpty else {
            throw HTTPError.badRequest("The field \"username\" is missing.", code: "invalid_json")
        }
        return username
    }

    private static func role(in body: SpaceMemberRequest) throws(HTTPError) -> SpaceRole {
        guard let role = body.role else { throw HTTPError.badRequest("The field \"role\" is missing.", code: "invalid_json") }
        guard role != .owner else {
            throw HTTPError.badRequest("A member is an editor or a viewer; the owner is made by transfer.", code: "invalid_role")
        }
        return role
    }
}
