/// The answers of spaces and their members. A space the caller may not reach is one 404 whether
/// it exists or not, on every route under `/v1/spaces/{space}` (docs/architecture.md §6.5).
extension HTTPError {
    /// 404 for a space the caller is not a member of, a deleted one, or none at all.
    static let spaceNotFound = HTTPError.notFound("There is no space with this id.", code: "space_not_found")
}

extension SpaceError: HTTPAnswerable {
    var httpError: HTTPError {
        switch self {
        case .notFound:
            .spaceNotFound
        case .readOnly:
            HTTPError(403, code: "read_only_space", message: "You are a viewer of this space: you may read it but not change it.")
        case .ownerOnly:
            HTTPError(403, code: "owner_only", message: "Only the space's owner may do this.")
        case .personal:
            HTTPError(409, code: "personal_space",
                      message: "Your personal space cannot be renamed, deleted, shared, left or given away; create a space to share.")
        case .nameTaken(let name):
            HTTPError(409, code: "space_name_taken", message: "The owner already has a space named \(name).")
        case .invalidName:
            .badRequest("A space name is 1 to 64 bytes: letters, digits, '.', '_' or '-'.", code: "invalid_space_name")
        case .noSuchUser:
            HTTPError.notFound("There is no account with this username.", code: "user_not_found")
        case .alreadyMember:
            HTTPError(409, code: "already_member", message: "This account is a member of the space already.")
        case .notMember:
            HTTPError.notFound("This account is not a member of the space.", code: "member_not_found")
        case .ownerMustTransfer:
            HTTPError(409, code: "owner_must_transfer",
                      message: "The owner stays the owner until they transfer the space to another member (POST /v1/spaces/{space}/transfer).")
        case .notDeleted:
            HTTPError(409, code: "space_not_deleted", message: "This space is not in the trash.")
        }
    }
}
