import NotesCore

/// The spaces paths of the OpenAPI document: spaces and their members, and every path of one
/// space's notes under `/v1/spaces/{space}` (docs/architecture.md §6.5).
extension OpenAPIDocument {
    static let spaceParameters: OpenAPIValue = [
        "SpaceId": parameter("space", in: .path,
            description: "The space's id (`id` in `GET /v1/spaces`).",
            schema: ["type": "integer", "format": "int64", "minimum": 1]
        ),
        "MemberUsername": parameter("username", in: .path,
            description: "A member's username.",
            schema: ["type": "string", "minLength": 1, "maxLength": 64]
        ),
    ]

    /// The 404 of every path under `/v1/spaces/{space}`.
    private static let spaceNotFound = errorAnswer("""
        `space_not_found`: the caller is not a member of this space, it is in the trash, or there is none: the \
        answer is the same, so it tells nothing about spaces the caller may not reach.
        """)

    static let spacePaths: OpenAPIValue = [
        "/v1/spaces": [
            "get": operation("listSpaces", tag: "spaces", access: .signedIn,
                summary: "The spaces the caller is a member of (personal first), and those it owns in the trash.",
                responses: ["200": answer("The spaces.", schema("SpaceList"))]
            ),
            "post": operation("createSpace", tag: "spaces", access: .writeScope, writes: true,
                summary: "Create a space, owned by the caller, with no other member.",
                requestBody: ["required": true, "content": json(schema("SpaceNameRequest"))],
                responses: [
                    "201": answer("Created.", schema("Space")),
                    "409": errorAnswer("`space_name_taken`: the caller owns a space of this name (`personal` is always taken)."),
                ]
            ),
        ],
        "/v1/spaces/{space}": [
            "parameters": [parameter("SpaceId")],
            "get": operation("getSpace", tag: "spaces", access: .signedIn,
                summary: "One space as the caller sees it.",
                responses: ["200": answer("The space.", schema("Space")), "404": spaceNotFound]
            ),
            "patch": operation("renameSpace", tag: "spaces", access: .writeScope, writes: true,
                summary: "Rename the space (its owner only).",
                requestBody: ["required": true, "content": json(schema("SpaceNameRequest"))],
                responses: [
                    "200": answer("Renamed.", schema("Space")),
                    "403": ownerOnly,
                    "404": spaceNotFound,
                    "409": errorAnswer("`space_name_taken`; or `personal_space`: the personal space keeps its name."),
                ]
            ),
            "delete": operation("deleteSpace", tag: "spaces", access: .writeScope, writes: true,
                summary: "Move the space to the trash (its owner only); every member loses access until it is restored.",
                responses: [
                    "204": answer("In the trash."),
                    "403": ownerOnly,
                    "404": spaceNotFound,
                    "409": errorAnswer("`personal_space`: the personal space cannot be deleted."),
                ]
            ),
        ],
        "/v1/spaces/{space}/restore": [
            "parameters": [parameter("SpaceId")],
            "post": operation("restoreSpace", tag: "spaces", access: .writeScope, writes: true,
                summary: "Take a space out of the trash, with its members (its owner only).",
                responses: [
                    "200": answer("Restored.", schema("Space")),
                    "404": errorAnswer("`space_not_found`: the caller owns no space with this id."),
                    "409": errorAnswer("`space_not_deleted`: the space is not in the trash; or `space_name_taken`."),
                ]
            ),
        ],
        "/v1/spaces/{space}/purge": [
            "parameters": [parameter("SpaceId")],
            "post": operation("purgeSpace", tag: "spaces", access: .writeScope, writes: true,
                summary: """
                    Remove a space in the trash for good (its owner only): its notes, history, attachments and \
                    members. It cannot be restored afterwards.
                    """,
                responses: [
                    "204": answer("Purged."),
                    "404": errorAnswer("`space_not_found`: the caller owns no space with this id."),
                    "409": errorAnswer("`space_not_deleted`: the space is not in the trash (delete it first)."),
                    "503": errorAnswer("`content_store_unavailable`: a backup is copying the content store; try again."),
                ]
            ),
        ],
        "/v1/spaces/{space}/transfer": [
            "parameters": [parameter("SpaceId")],
            "post": operation("transferSpace", tag: "spaces", access: .writeScope, writes: true,
                summary: "Make another member the owner (its owner only); the old owner stays, as an editor.",
                requestBody: ["required": true, "content": json(schema("SpaceMemberRequest"))],
                responses: [
                    "200": answer("Transferred; the space as the old owner sees it now.", schema("Space")),
                    "403": ownerOnly,
                    "404": errorAnswer("`space_not_found`; or `member_not_found`: `username` is not a member."),
                    "409": errorAnswer("`space_name_taken`: the new owner has a space of this name; or `personal_space`."),
                ]
            ),
        ],
        "/v1/spaces/{space}/leave": [
            "parameters": [parameter("SpaceId")],
            "post": operation("leaveSpace", tag: "spaces", access: .writeScope, writes: true,
                summary: "End the caller's membership.",
                responses: [
                    "204": answer("Left."),
                    "404": spaceNotFound,
                    "409": errorAnswer("`owner_must_transfer`: the owner transfers the space first; or `personal_space`."),
                ]
            ),
        ],
        "/v1/spaces/{space}/members": [
            "parameters": [parameter("SpaceId")],
            "get": operation("listSpaceMembers", tag: "spaces", access: .signedIn,
                summary: "The space's members, owner first; every member may read them.",
                responses: ["200": answer("The members.", schema("SpaceMemberList")), "404": spaceNotFound]
            ),
            "post": operation("addSpaceMember", tag: "spaces", access: .writeScope, writes: true,
                summary: "Add an account as `editor` or `viewer` (the owner only).",
                requestBody: ["required": true, "content": json(schema("SpaceMemberRequest"))],
                responses: [
                    "201": answer("Added.", schema("SpaceMember")),
                    "403": ownerOnly,
                    "404": errorAnswer("`space_not_found`; or `user_not_found`: no account has this username."),
                    "409": errorAnswer("`already_member`; or `personal_space`: the personal space is not shared."),
                ]
            ),
        ],
        "/v1/spaces/{space}/members/{username}": [
            "parameters": [parameter("SpaceId"), parameter("MemberUsername")],
            "patch": operation("changeSpaceMemberRole", tag: "spaces", access: .writeScope, writes: true,
                summary: "Change a member's role to `editor` or `viewer` (the owner only).",
                requestBody: ["required": true, "content": json(schema("SpaceMemberRequest"))],
                responses: [
                    "200": answer("Changed.", schema("SpaceMember")),
                    "403": ownerOnly,
                    "404": errorAnswer("`space_not_found`; or `member_not_found`."),
                    "409": errorAnswer("`owner_must_transfer`: the owner's role changes only by a transfer."),
                ]
            ),
            "delete": operation("removeSpaceMember", tag: "spaces", access: .writeScope, writes: true,
                summary: "Remove a member (the owner only); their next request on the space answers 404 and a held long poll ends.",
                responses: [
                    "204": answer("Removed."),
                    "403": ownerOnly,
                    "404": errorAnswer("`space_not_found`; or `member_not_found`."),
                    "409": errorAnswer("`owner_must_transfer`: the owner is not removed; they transfer the space first."),
                ]
            ),
        ],
    ]

    private static let ownerOnly = errorAnswer(
        "`owner_only`: only the space's owner may do this; or `insufficient_scope`: a read-only token.",
        headers: ["WWW-Authenticate": header("WWWAuthenticate")]
    )

    /// Every path of `paths` whose routes work on one space's notes (`SpacePaths.isScoped`),
    /// again under `/v1/spaces/{space}`: the same operations with the space's parameter, ids
    /// ending `InSpace`, the 404 of a space the caller may not reach, and the 403 of a viewer.
    static func inSpaces(_ paths: OpenAPIValue) -> OpenAPIValue {
        guard case .object(let items) = paths else { return [:] }
        var copies: OpenAPIValue.Fields = []
        for (path, item) in items {
            guard SpacePaths.isScoped(path), case .object(let fields) = item else { continue }
            var copy: OpenAPIValue.Fields = [("parameters", .array([parameter("SpaceId")] + (pathParameters(of: item))))]
            for (method, operation) in fields where method != "parameters" {
                copy.append((method, inSpace(operation)))
            }
            copies.append(("/v1/spaces/{space}" + path.dropFirst(3), .object(copy)))
        }
        return .object(copies)
    }

    private static func pathParameters(of item: OpenAPIValue) -> [OpenAPIValue] {
        if case .array(let parameters) = item["parameters"] { return parameters }
        return []
    }

    private static func inSpace(_ operation: OpenAPIValue) -> OpenAPIValue {
        guard case .object(var fields) = operation else { return operation }
        var writes = false
        for index in fields.indices {
            switch fields[index].key {
            case "operationId":
                if case .string(let id) = fields[index].value { fields[index].value = .string(id + "InSpace") }
            case "responses":
                guard case .object(var answers) = fields[index].value else { continue }
                writes = answers.contains { $0.key == "403" }
                if let found = answers.firstIndex(where: { $0.key == "404" }) {
                    answers[found].value = errorAnswer("`space_not_found`, as for every path of a space; or, as on the personal path, nothing with this id.")
                } else {
                    answers.append(("404", spaceNotFound))
                }
                if writes, let forbidden = answers.firstIndex(where: { $0.key == "403" }) {
                    answers[forbidden].value = errorAnswer(
                        "`read_only_space`: the caller is a viewer of this space; or `insufficient_scope`: a read-only token.",
                        headers: ["WWW-Authenticate": header("WWWAuthenticate")])
                }
                answers.sort { (Int($0.key) ?? 1000) < (Int($1.key) ?? 1000) }
                fields[index].value = .object(answers)
            default:
                continue
            }
        }
        return .object(fields)
    }
}
