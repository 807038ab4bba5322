/// What a member may do in a space: `owner` (everything, one per space), `editor` (read, write,
/// delete, restore, publish) or `viewer` (read only).
public enum SpaceRole: String, Codable, Sendable, CaseIterable {
    case owner
    case editor
    case viewer

    /// Whether the role may change the space's notes and attachments.
    public var writes: Bool { self != .viewer }
}

/// A space as one of its members sees it (`GET /v1/spaces`).
public struct SpaceResource: Codable, Sendable, Equatable {
    /// The space's id, the `{space}` of `/v1/spaces/{space}/…`; it never changes.
    public var id: Int64
    public var name: String
    /// The owner's username.
    public var owner: String
    /// The caller's role in it.
    public var role: SpaceRole
    /// The caller's own space, the one `/v1/notes…` addresses.
    public var personal: Bool
    public var createdAt: String
    /// Set while the space is in the trash (only its owner sees it then).
    public var deletedAt: String?

    public init(id: Int64, name: String, owner: String, role: SpaceRole, personal: Bool, createdAt: String, deletedAt: String? = nil) {
        self.id = id
        self.name = name
        self.owner = owner
        self.role = role
        self.personal = personal
        self.createdAt = createdAt
        self.deletedAt = deletedAt
    }

    /// How a member names the space: `OWNER/NAME`.
    public var qualifiedName: String { owner + "/" + name }
}

/// `GET /v1/spaces`: every space the caller is a member of, and those it owns in the trash.
public struct SpaceList: Codable, Sendable, Equatable {
    public var spaces: [SpaceResource]

    public init(spaces: [SpaceResource]) {
        self.spaces = spaces
    }
}

/// `POST /v1/spaces` and `PATCH /v1/spaces/{space}`: the space's (new) name.
public struct SpaceNameRequest: Codable, Sendable, Equatable {
    public var name: String

    public init(name: String) {
        self.name = name
    }
}

/// A member of a space (`GET /v1/spaces/{space}/members`).
public struct SpaceMemberResource: Codable, Sendable, Equatable {
    public var username: String
    public var role: SpaceRole
    public var addedAt: String

    public init(username: String, role: SpaceRole, addedAt: String) {
        self.username = username
        self.role = role
        self.addedAt = addedAt
    }
}

public struct SpaceMemberList: Codable, Sendable, Equatable {
    public var members: [SpaceMemberResource]

    public init(members: [SpaceMemberResource]) {
        self.members = members
    }
}

/// `POST /v1/spaces/{space}/members` (add `username` as `role`), `PATCH
/// /v1/spaces/{space}/members/{username}` (change the role; `username` ignored) and `POST
/// /v1/spaces/{space}/transfer` (make `username` the owner; `role` ignored).
public struct SpaceMemberRequest: Codable, Sendable, Equatable {
    public var username: String?
    public var role: SpaceRole?

    public init(username: String? = nil, role: SpaceRole? = nil) {
        self.username = username
        self.role = role
    }
}

extension SpaceRole: WireJSONEnumeration {
    /// A component of its own (`SpaceRole`), which fields refer to.
    public static var openAPISchema: OpenAPIValue { ["$ref": "#/components/schemas/SpaceRole"] }
}

extension SpaceResource: WireDescribed {
    public static let wireShape = WireShape<SpaceResource>("Space", fields: [
        .required("id", \.id, ["description": "The space's id, `{space}` in `/v1/spaces/{space}/…`; it never changes."]),
        .required("name", \.name),
        .required("owner", \.owner, ["description": "The owner's username."]),
        .required("role", \.role),
        .required("personal", \.personal, ["description": "The caller's own space, the one `/v1/notes…` addresses."]),
        .required("created_at", \.createdAt, .dateTime),
        .optional("deleted_at", \.deletedAt, .merged(.dateTime, [
            "nullable": true, "description": "Set while the space is in the trash; only its owner sees it then.",
        ])),
    ])
}

extension SpaceList: WireDescribed {
    public static let wireShape = WireShape<SpaceList>("SpaceList", fields: [.required("spaces", \.spaces)])
}

extension SpaceNameRequest: WireDescribed {
    public static let wireShape = WireShape<SpaceNameRequest>("SpaceNameRequest", fields: [
        .required("name", \.name, [
            "minLength": 1,
            "maxLength": 64,
            "description": "1 to 64 bytes: letters, digits, '.', '_' or '-'; unique among the owner's spaces.",
        ]),
    ])
}

extension SpaceMemberResource: WireDescribed {
    public static let wireShape = WireShape<SpaceMemberResource>("SpaceMember", fields: [
        .required("username", \.username),
        .required("role", \.role),
        .required("added_at", \.addedAt, .dateTime),
    ])
}

extension SpaceMemberList: WireDescribed {
    public static let wireShape = WireShape<SpaceMemberList>("SpaceMemberList", fields: [.required("members", \.members)])
}

extension SpaceMemberRequest: WireDescribed {
    public static let wireShape = WireShape<SpaceMemberRequest>("SpaceMemberRequest", fields: [
        .optional("username", \.username, ["description": "The account to add, or to make the owner."]),
        .optional("role", \.role, ["description": "`editor` or `viewer` (an owner is made by transfer)."]),
    ])
}
