import Foundation
import NotesCore

/// Typed calls for spaces and their members (`/v1/spaces…`).
extension APIClient {
    /// A client of the same account whose note requests address `space` (nil: the personal space).
    func inSpace(_ space: Int64?) -> APIClient {
        APIClient(server: server, credential: credential, retryPolicy: retryPolicy, now: now, space: space)
    }

    /// `GET /v1/spaces`: the spaces this account is a member of, and those it owns in the trash.
    func spaces() async throws -> [SpaceResource] {
        try await json(SpaceList.self, APIRequest("GET", "/v1/spaces")).spaces
    }

    /// `POST /v1/spaces`: a new space owned by this account. Not retried after a possibly
    /// delivered request: a retry would answer `space_name_taken`.
    func createSpace(named name: String) async throws -> SpaceResource {
        try await json(SpaceResource.self, .json("POST", "/v1/spaces", SpaceNameRequest(name: name)))
    }

    /// `PATCH /v1/spaces/{space}`.
    func renameSpace(_ space: Int64, to name: String) async throws -> SpaceResource {
        try await json(SpaceResource.self, .json("PATCH", "/v1/spaces/\(space)", SpaceNameRequest(name: name), idempotent: true))
    }

    /// `DELETE /v1/spaces/{space}`: to the trash.
    func deleteSpace(_ space: Int64) async throws {
        _ = try await send(APIRequest("DELETE", "/v1/spaces/\(space)"))
    }

    /// `POST /v1/spaces/{space}/restore`: out of the trash.
    func restoreSpace(_ space: Int64) async throws -> SpaceResource {
        try await json(SpaceResource.self, APIRequest("POST", "/v1/spaces/\(space)/restore"))
    }

    /// `POST /v1/spaces/{space}/purge`: a space in the trash removed for good.
    func purgeSpace(_ space: Int64) async throws {
        _ = try await send(APIRequest("POST", "/v1/spaces/\(space)/purge"))
    }

    /// `POST /v1/spaces/{space}/leave`.
    func leaveSpace(_ space: Int64) async throws {
        _ = try await send(APIRequest("POST", "/v1/spaces/\(space)/leave", idempotent: true))
    }

    /// `GET /v1/spaces/{space}/members`.
    func spaceMembers(_ space: Int64) async throws -> [SpaceMemberResource] {
        try await json(SpaceMemberList.self, APIRequest("GET", "/v1/spaces/\(space)/members")).members
    }

    /// Makes `username` a member with `role`: added when new, given the role when a member already.
    func setSpaceMember(_ space: Int64, username: String, role: SpaceRole) async throws -> SpaceMemberResource {
        do {
            return try await json(SpaceMemberResource.self,
                                  .json("POST", "/v1/spaces/\(space)/members", SpaceMemberRequest(username: username, role: role)))
        } catch let error as ClientError where error.apiStatus?.code == "already_member" {
            let path = "/v1/spaces/\(space)/members/\(ServerURL.encodePathSegment(username))"
            return try await json(SpaceMemberResource.self, .json("PATCH", path, SpaceMemberRequest(role: role), idempotent: true))
        }
    }

    /// `DELETE /v1/spaces/{space}/members/{username}`.
    func removeSpaceMember(_ space: Int64, username: String) async throws {
        _ = try await send(APIRequest("DELETE", "/v1/spaces/\(space)/members/\(ServerURL.encodePathSegment(username))"))
    }
}
