/// `POST /v1/auth/token`: a one-time code from a browser sign-in (RFC 8252's loopback redirect)
/// exchanged for a session, proving with the PKCE verifier that the caller started the sign-in.
public struct TokenGrantRequest: Codable, Sendable, Equatable {
    /// Always `authorization_code`.
    public var grantType: String
    public var code: String
    public var codeVerifier: String
    /// The loopback redirect the sign-in used; checked when given.
    public var redirectUri: String?
    /// A name for the session, as at password sign-in.
    public var device: String?

    public init(code: String, codeVerifier: String, redirectUri: String? = nil, device: String? = nil) {
        self.grantType = "authorization_code"
        self.code = code
        self.codeVerifier = codeVerifier
        self.redirectUri = redirectUri
        self.device = device
    }
}

/// `GET /v1/auth/providers`: the identity providers a user may sign in with.
public struct SignInProvidersResponse: Codable, Sendable, Equatable {
    public struct Provider: Codable, Sendable, Equatable {
        /// What `notes login --web --provider` and `/auth/cli/start?provider=` take.
        public var id: String
        /// "Sign in with <name>".
        public var name: String

        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    public var providers: [Provider]

    public init(providers: [Provider]) {
        self.providers = providers
    }
}

extension TokenGrantRequest: WireDescribed {
    public static let wireShape = WireShape<TokenGrantRequest>("TokenGrantRequest", fields: [
        .required("grant_type", \.grantType, ["enum": ["authorization_code"]]),
        .required("code", \.code, ["description": "The one-time code from the loopback redirect."]),
        .required("code_verifier", \.codeVerifier,
                  ["description": "The PKCE verifier (RFC 7636) of the challenge sent at the start."]),
        .optional("redirect_uri", \.redirectUri, ["nullable": true, "description": "The loopback redirect used; checked when given."]),
        .optional("device", \.device, ["nullable": true, "description": "A name for the session, as at password sign-in."]),
    ])
}

extension SignInProvidersResponse: WireDescribed {
    public static let wireShape = WireShape<SignInProvidersResponse>("SignInProviders", fields: [.required("providers", \.providers)])
}

extension SignInProvidersResponse.Provider: WireDescribed {
    public static let wireShape = WireShape<SignInProvidersResponse.Provider>("SignInProvider", fields: [
        .required("id", \.id, ["description": "What `/auth/cli/start?provider=` and `notes login --web --provider` take."]),
        .required("name", \.name, ["description": "The name to show: \"Sign in with <name>\"."]),
    ])

    /// Written out where it is used rather than as a component of its own.
    public static var openAPISchema: OpenAPIValue { wireShape.openAPISchema }
}
