import Foundation

/// What a provider's token endpoint answers that Notes uses. The access token is spent only on
/// the provider's own userinfo endpoint, never stored and never logged.
struct ProviderTokens: Sendable {
    let idToken: String
    let accessToken: String?
}

extension OIDCProviderClient {
    /// The whole provider side of a sign-in's callback: the code exchanged, the ID token checked,
    /// and, when it leaves out the claims an account is named and joined by, those claims asked of
    /// the provider's userinfo endpoint with the access token (OpenID Connect Core §5.3), over the
    /// same bounded client. A userinfo answer about another subject fails the sign-in (§5.3.4).
    /// - Throws: `ProviderError` when the provider cannot be reached or answers unusably,
    ///   `IDTokenError` when the ID token or the userinfo answer fails a check.
    func signIn(code: String, verifier: String, redirectURI: String, nonce: String) async throws -> IDTokenClaims {
        let tokens = try await exchange(code: code, verifier: verifier, redirectURI: redirectURI)
        let claims = try await verify(idToken: tokens.idToken, nonce: nonce)
        guard claims.lacksProfileClaims, let accessToken = tokens.accessToken, let endpoint = try await discover().userinfoEndpoint else {
            return claims
        }
        let userInfo: UserInfoClaims = try await getJSON(endpoint, label: "userinfo", bearer: accessToken)
        guard userInfo.sub == claims.sub else { throw IDTokenError.userInfoSubjectMismatch }
        return claims.supplemented(by: userInfo)
    }
}
