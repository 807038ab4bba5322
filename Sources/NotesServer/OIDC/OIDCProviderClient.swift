import Foundation

/// What a provider's discovery document (`/.well-known/openid-configuration`) tells Notes.
struct ProviderMetadata: Decodable, Sendable {
    let issuer: String
    let authorizationEndpoint: URL
    let tokenEndpoint: URL
    let jwksURI: URL
    /// Asked for the profile claims an ID token leaves out (OpenID Connect Core §5.3), when the
    /// provider has one.
    let userinfoEndpoint: URL?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case userinfoEndpoint = "userinfo_endpoint"
    }

    /// Where to send the person's browser: the authorization endpoint with the code-flow request
    /// (RFC 6749 §4.1.1 with PKCE S256 and the OpenID `nonce`), added to whatever query the
    /// provider's endpoint already carries. One builder for the command-line and browser starts.
    func authorizationURL(for provider: OIDCProviderSettings, callback: URL, state: String, nonce: String,
                          verifier: String) throws -> String {
        guard var components = URLComponents(url: authorizationEndpoint, resolvingAgainstBaseURL: false) else {
            throw ProviderError.badAnswer("the authorization endpoint is not a URL")
        }
        let parameters = [("response_type", "code"), ("client_id", provider.clientID), ("redirect_uri", callback.absoluteString),
                          ("scope", provider.scopes.joined(separator: " ")), ("state", state), ("nonce", nonce),
                          ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256")]
        let added = parameters.map { OIDCProviderClient.formEncode($0.0) + "=" + OIDCProviderClient.formEncode($0.1) }.joined(separator: "&")
        components.percentEncodedQuery = [components.percentEncodedQuery, added].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "&")
        return components.string ?? ""
    }
}

/// The relying party's side of one provider: discovery, its signing keys, the code exchange and
/// the ID token check. Discovery and keys are cached; an ID token signed with a key id not in
/// the cache makes it fetch the key set once more (the provider rotated its keys), and a key id
/// still unknown after that is refused.
actor OIDCProviderClient {
    let settings: OIDCProviderSettings
    let http: ProviderHTTPClient
    private let clock: ServerClock
    private var metadata: (value: ProviderMetadata, fetchedAt: Int64)?
    private var keys: [VerificationKey]?
    /// The last check that the authorization endpoint answers: its failure, if any, and when.
    private var reachability: (failure: ProviderError?, checkedAt: Int64)?

    /// Discovery is fetched again after this long, so an endpoint moved by the provider is seen.
    static let metadataLifetimeMilliseconds: Int64 = 3_600_000
    /// The largest discovery document or key set read.
    static let maxDocumentBytes = 256 * 1024
    /// How long the answer of the check before a sign-in (`readyForSignIn`) holds: short, so a
    /// provider that went down is noticed within seconds, while a burst of sign-ins costs one check.
    static let reachabilityLifetimeMilliseconds: Int64 = 10_000
    /// The deadline of that check, in seconds (or the provider's own, if shorter): a person is
    /// waiting on the sign-in button meanwhile.
    static let reachabilityTimeoutSeconds = 3

    init(settings: OIDCProviderSettings, http: ProviderHTTPClient, clock: ServerClock) {
        self.settings = settings
        self.http = http
        self.clock = clock
    }

    /// The discovery document, fetched when not cached (or older than an hour).
    /// - Throws: `ProviderError`, also when the document names another issuer than configured
    ///   (OpenID Connect Discovery §4.3) or endpoints less secure than the issuer.
    func discover() async throws -> ProviderMetadata {
        let now = clock.now()
        if let metadata, now - metadata.fetchedAt < Self.metadataLifetimeMilliseconds { return metadata.value }
        let base = settings.issuer.hasSuffix("/") ? String(settings.issuer.dropLast()) : settings.issuer
        guard let url = URL(string: base + "/.well-known/openid-configuration") else { throw ProviderError.badAnswer("the issuer URL is invalid") }
        let document: ProviderMetadata = try await getJSON(url, label: "discovery")
        guard document.issuer == settings.issuer else { throw ProviderError.badAnswer("the discovery document names another issuer") }
        let secure = settings.issuer.hasPrefix("https:")
        let endpoints = [document.authorizationEndpoint, document.tokenEndpoint, document.jwksURI] + (document.userinfoEndpoint.map { [$0] } ?? [])
        for endpoint in endpoints {
            guard let scheme = endpoint.scheme, scheme == "https" || (!secure && scheme == "http"), endpoint.host != nil else {
                throw ProviderError.badAnswer("an endpoint in the discovery document is not an https URL")
            }
        }
        metadata = (document, now)
        return document
    }

    /// The discovery document, once the provider's authorization endpoint has answered (any HTTP
    /// answer below 500, within a few seconds; the result held for ten): the browser is only sent
    /// to a provider that is there to receive it. The discovery document is cached for an hour,
    /// so without this check a provider that went down meanwhile would leave the browser on a
    /// "connection refused" page instead of Notes' sign-in page with the reason.
    /// - Throws: `ProviderError` when discovery fails or the endpoint does not answer.
    func readyForSignIn() async throws -> ProviderMetadata {
        let metadata = try await discover()
        let now = clock.now()
        if let reachability, now - reachability.checkedAt >= 0, now - reachability.checkedAt < Self.reachabilityLifetimeMilliseconds {
            if let failure = reachability.failure { throw failure }
            return metadata
        }
        let failure = await authorizationEndpointFailure(metadata.authorizationEndpoint)
        reachability = (failure, clock.now())
        if let failure { throw failure }
        return metadata
    }

    /// Why the authorization endpoint cannot take a browser, or `nil` when it answers. A plain
    /// GET without parameters: providers answer it with an error page, which is an answer.
    private func authorizationEndpointFailure(_ endpoint: URL) async -> ProviderError? {
        let request = ProviderHTTPClient.Request(url: endpoint, headers: ["Accept": "text/html"])
        do {
            let answer = try await http.send(request, label: "authorization",
                                             timeoutSeconds: min(settings.timeoutSeconds, Self.reachabilityTimeoutSeconds), maxBytes: 64 * 1024)
            return answer.status >= 500 ? .status("authorization", answer.status) : nil
        } catch {
            switch error {
            // A login page on another origin, or a large page: the provider is there.
            case .redirected, .tooLarge: return nil
            default: return error
            }
        }
    }

    /// Exchanges an authorization `code` at the token endpoint (RFC 6749 §4.1.3 with PKCE's
    /// `code_verifier`, RFC 7636 §4.5), authenticating with the client secret when there is one,
    /// and returns the ID token it answers, with the access token when there is one (for userinfo).
    func exchange(code: String, verifier: String, redirectURI: String) async throws -> ProviderTokens {
        let metadata = try await discover()
        var request = ProviderHTTPClient.Request(method: "POST", url: metadata.tokenEndpoint,
                                                 headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"])
        var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier)]
        if let secret = settings.clientSecret {
            // client_secret_basic (RFC 6749 §2.3.1): both parts form-encoded, then base64.
            let credentials = Self.formEncode(settings.clientID) + ":" + Self.formEncode(secret)
            request.headers["Authorization"] = "Basic " + Data(credentials.utf8).base64EncodedString()
        } else {
            form.append(("client_id", settings.clientID))
        }
        request.body = Data(form.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&").utf8)
        let answer = try await http.send(request, label: "token", timeoutSeconds: settings.timeoutSeconds, maxBytes: Self.maxDocumentBytes)
        struct TokenAnswer: Decodable {
            let idToken: String?
            let accessToken: String?
            let error: String?
            enum CodingKeys: String, CodingKey {
                case idToken = "id_token"
                case accessToken = "access_token"
                case error
            }
        }
        let decoded = try? JSONDecoder().decode(TokenAnswer.self, from: answer.body)
        guard answer.status == 200 else {
            if let error = decoded?.error, error.utf8.count <= 64, error.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") }) {
                throw ProviderError.refused(error)
            }
            throw ProviderError.status("token", answer.status)
        }
        guard let idToken = decoded?.idToken else { throw ProviderError.badAnswer("the token answer has no id_token") }
        return ProviderTokens(idToken: idToken, accessToken: decoded?.accessToken.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// Checks `idToken`'s signature against the provider's keys and its claims against this
    /// sign-in, and returns its claims.
    /// - Throws: `IDTokenError` for a token that fails a check, `ProviderError` when the keys
    ///   cannot be fetched.
    func verify(idToken: String, nonce: String) async throws -> IDTokenClaims {
        let jws = try JSONWebSignature(compact: idToken)
        var key = jws.key(in: try await signingKeys(refresh: false))
        if key == nil {
            key = jws.key(in: try await signingKeys(refresh: true))
        }
        guard let key else { throw IDTokenError.unknownKey(jws.header.kid) }
        try jws.verify(with: key)
        let claims = try IDTokenClaims.decode(jws.payload)
        try IDTokenValidator(issuer: settings.issuer, clientID: settings.clientID).validate(claims, nonce: nonce, nowMilliseconds: clock.now())
        return claims
    }

    /// The provider's signature keys, from the cache unless `refresh` or none are cached.
    /// Keys Notes cannot use (encryption keys, other curves) are skipped, not fatal.
    private func signingKeys(refresh: Bool) async throws -> [VerificationKey] {
        if !refresh, let keys { return keys }
        let metadata = try await discover()
        let set: JSONWebKeySet = try await getJSON(metadata.jwksURI, label: "jwks")
        let usable = set.keys.compactMap { try? VerificationKey($0) }
        keys = usable
        return usable
    }

    func getJSON<T: Decodable>(_ url: URL, label: String, bearer: String? = nil) async throws -> T {
        var request = ProviderHTTPClient.Request(url: url, headers: ["Accept": "application/json"])
        if let bearer { request.headers["Authorization"] = "Bearer " + bearer }
        let answer = try await http.send(request, label: label, timeoutSeconds: settings.timeoutSeconds, maxBytes: Self.maxDocumentBytes)
        guard answer.status == 200 else { throw ProviderError.status(label, answer.status) }
        do {
            return try JSONDecoder().decode(T.self, from: answer.body)
        } catch {
            throw ProviderError.badAnswer("the \(label) document is not the expected JSON")
        }
    }

    /// `application/x-www-form-urlencoded` for one name or value.
    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
