/// `POST /v1/auth/login`.
public struct LoginRequest: Codable, Sendable, Equatable {
    public var username: String
    public var password: String
    /// A name for the session, shown in session lists (such as the host name).
    public var device: String?
    /// The refresh token (current or spent) of the session this sign-in replaces, such as the
    /// one stored for this account on this device: that session is ended after a successful
    /// sign-in, so one device keeps one session. Ignored when it is unknown or another user's.
    public var replacesRefreshToken: String?

    public init(username: String, password: String, device: String? = nil, replacesRefreshToken: String? = nil) {
        self.username = username
        self.password = password
        self.device = device
        self.replacesRefreshToken = replacesRefreshToken
    }
}

/// `POST /v1/auth/refresh`.
public struct RefreshRequest: Codable, Sendable, Equatable {
    public var refreshToken: String

    public init(refreshToken: String) {
        self.refreshToken = refreshToken
    }
}

/// The answer to login and refresh (RFC 6749 §5.1 field names).
public struct TokenResponse: Codable, Sendable, Equatable {
    public var accessToken: String
    public var tokenType: String
    /// Seconds until the access token expires.
    public var expiresIn: Int
    public var refreshToken: String?
    public var user: UserResource

    public init(accessToken: String, tokenType: String = "Bearer", expiresIn: Int, refreshToken: String?, user: UserResource) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.user = user
    }
}

/// A user as shown to that user (`GET /v1/me`); never any credential.
public struct UserResource: Codable, Sendable, Equatable {
    public var id: Int64
    public var username: String
    public var createdAt: String

    public init(id: Int64, username: String, createdAt: String) {
        self.id = id
        self.username = username
        self.createdAt = createdAt
    }
}

/// What a personal access token may do.
public enum TokenScope: String, Codable, Sendable, CaseIterable {
    case read
    case write
}

/// `POST /v1/tokens`.
public struct CreateTokenRequest: Codable, Sendable, Equatable {
    public var name: String
    public var scope: TokenScope
    /// Lifetime in seconds; absent for a token that lasts until revoked.
    public var expiresIn: Int?

    public init(name: String, scope: TokenScope, expiresIn: Int? = nil) {
        self.name = name
        self.scope = scope
        self.expiresIn = expiresIn
    }
}

/// A personal access token; `token` (the secret) only in the answer that created it.
public struct PersonalTokenResource: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var scope: TokenScope
    public var createdAt: String
    public var expiresAt: String?
    public var lastUsedAt: String?
    public var token: String?

    public init(id: String, name: String, scope: TokenScope, createdAt: String, expiresAt: String?, lastUsedAt: String?, token: String?) {
        self.id = id
        self.name = name
        self.scope = scope
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
        self.token = token
    }
}

public struct PersonalTokenList: Codable, Sendable, Equatable {
    public var tokens: [PersonalTokenResource]

    public init(tokens: [PersonalTokenResource]) {
        self.tokens = tokens
    }
}

extension LoginRequest: WireDescribed {
    public static let wireShape = WireShape<LoginRequest>("LoginRequest", fields: [
        .required("username", \.username),
        .required("password", \.password, ["format": "password"]),
        .optional("device", \.device, [
            "nullable": true,
            "description": """
                A name for the session, such as the host name; each revision written through it records this \
                name (see Revision.device).
                """,
        ]),
        .optional("replaces_refresh_token", \.replacesRefreshToken, [
            "nullable": true,
            "description": """
                The refresh token (current or spent) of the session this sign-in replaces, such as the one \
                this device stored for the account. After a successful sign-in that session is ended, so a \
                device keeps one session. A token that is unknown, malformed or another user's is ignored, \
                and the answer is the same.
                """,
        ]),
    ])
}

extension RefreshRequest: WireDescribed {
    public static let wireShape = WireShape<RefreshRequest>("RefreshRequest", fields: [.required("refresh_token", \.refreshToken)])
}

extension TokenResponse: WireDescribed {
    public static let wireShape = WireShape<TokenResponse>("TokenResponse", fields: [
        .required("access_token", \.accessToken),
        .required("token_type", \.tokenType, ["enum": ["Bearer"]]),
        .required("expires_in", \.expiresIn, ["description": "Seconds until the access token expires."]),
        .optional("refresh_token", \.refreshToken,
                  ["nullable": true, "description": "Spent by its next use: each refresh returns a new one."]),
        .required("user", \.user),
    ])
}

extension UserResource: WireDescribed {
    public static let wireShape = WireShape<UserResource>("User", fields: [
        .required("id", \.id),
        .required("username", \.username),
        .required("created_at", \.createdAt, .dateTime),
    ])
}

extension TokenScope: WireJSONEnumeration {
    /// A component of its own (`TokenScope`), which fields refer to.
    public static var openAPISchema: OpenAPIValue { ["$ref": "#/components/schemas/TokenScope"] }
}

extension CreateTokenRequest: WireDescribed {
    public static let wireShape = WireShape<CreateTokenRequest>("CreateTokenRequest", fields: [
        .required("name", \.name, [
            "minLength": 1,
            "maxLength": 100,
            "description": "1 to 100 characters, not blank, without control or format characters.",
        ]),
        .required("scope", \.scope),
        .optional("expires_in", \.expiresIn, [
            "nullable": true,
            "minimum": 1,
            "maximum": 315_360_000,
            "description": """
                Lifetime in seconds, at most ten years; absent for a token that lasts until revoked. A \
                personal token creating a token must ask for no longer than its own remaining lifetime.
                """,
        ]),
    ])
}

extension PersonalTokenResource: WireDescribed {
    public static let wireShape = WireShape<PersonalTokenResource>("PersonalToken", fields: [
        .required("id", \.id),
        .required("name", \.name),
        .required("scope", \.scope),
        .required("created_at", \.createdAt, .dateTime),
        .optional("expires_at", \.expiresAt, .merged(.dateTime, ["nullable": true])),
        .optional("last_used_at", \.lastUsedAt, .merged(.dateTime, ["nullable": true])),
        .optional("token", \.token,
                  ["nullable": true, "description": "The secret (prefix `npt_`), only in the answer that created it."]),
    ])
}

extension PersonalTokenList: WireDescribed {
    public static let wireShape = WireShape<PersonalTokenList>("PersonalTokenList", fields: [.required("tokens", \.tokens)])
}
