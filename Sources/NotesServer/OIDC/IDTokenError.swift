/// Why an ID token, a provider's key or a provider's answer was refused. The descriptions name
/// the rule that failed and never quote a token, code or secret, so they may be logged.
enum IDTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not three base64url parts of JSON.
    case malformed(String)
    /// `alg` other than RS256 or ES256 (`none` and the HMAC family included).
    case unsupportedAlgorithm(String)
    /// No key in the provider's JWKS has this `kid`, even after fetching the set again.
    case unknownKey(String?)
    /// A JWK that cannot check a signature.
    case badKey(String)
    case badSignature
    case wrongIssuer
    case wrongAudience
    case expired
    case notYetValid
    case wrongNonce
    case missingClaim(String)
    /// The provider's userinfo answer names another subject than its ID token (OpenID Connect
    /// Core §5.3.4: such an answer must not be used).
    case userInfoSubjectMismatch

    var description: String {
        switch self {
        case .malformed(let why): "the ID token is malformed (\(why))"
        case .unsupportedAlgorithm(let alg): "the ID token is signed with '\(alg)', but only RS256 and ES256 are accepted"
        case .unknownKey(let kid): "no key of the provider has the ID token's key id '\(kid ?? "(none)")'"
        case .badKey(let why): "the provider published an unusable key: \(why)"
        case .badSignature: "the ID token's signature does not verify"
        case .wrongIssuer: "the ID token comes from another issuer"
        case .wrongAudience: "the ID token was issued to another client"
        case .expired: "the ID token has expired"
        case .notYetValid: "the ID token is not valid yet (issued in the future)"
        case .wrongNonce: "the ID token's nonce does not match this sign-in"
        case .missingClaim(let claim): "the ID token has no valid '\(claim)' claim"
        case .userInfoSubjectMismatch: "the provider's userinfo answer is about another subject than its ID token"
        }
    }
}
