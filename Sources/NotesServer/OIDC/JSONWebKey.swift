import Foundation
import NotesCore

/// One key of a provider's JWKS (RFC 7517) as published: only the public members Notes reads.
struct JSONWebKey: Decodable, Sendable {
    /// `RSA` or `EC`; others (`oct`, `OKP`) are skipped.
    let kty: String
    let kid: String?
    /// `sig` or `enc`; a key published for encryption never checks a signature.
    let use: String?
    let alg: String?
    /// RSA modulus and exponent.
    let n: String?
    let e: String?
    /// EC curve and point.
    let crv: String?
    let x: String?
    let y: String?
}

/// A provider's key set, `{"keys": [...]}`.
struct JSONWebKeySet: Decodable, Sendable {
    let keys: [JSONWebKey]
}

/// A provider's signing key: the JWK's id with the public key NotesCore's libcrypto wrapper
/// built from its members, ready to check signatures.
struct VerificationKey: Sendable {
    typealias Kind = SignatureKey.Kind

    let id: String?
    private let key: SignatureKey

    var kind: Kind { key.kind }

    /// Builds the key `jwk` describes.
    /// - Throws: `IDTokenError.badKey` when it is of another type, meant for encryption, or its
    ///   members are missing, malformed or refused by libcrypto (not on the curve, too short).
    init(_ jwk: JSONWebKey) throws(IDTokenError) {
        if let use = jwk.use, use != "sig" { throw .badKey("a key for '\(use)', not signatures") }
        id = jwk.kid
        switch jwk.kty {
        case "RSA":
            guard let n = jwk.n.flatMap(Base64URL.decode), let e = jwk.e.flatMap(Base64URL.decode), !n.isEmpty, !e.isEmpty else {
                throw .badKey("an RSA key without a valid n and e")
            }
            key = try Self.built { () throws(SignatureKeyError) in try SignatureKey(rsaModulus: n, exponent: e) }
        case "EC":
            guard jwk.crv == "P-256" else { throw .badKey("an EC key on curve '\(jwk.crv ?? "")', not P-256") }
            guard let x = jwk.x.flatMap(Base64URL.decode), let y = jwk.y.flatMap(Base64URL.decode) else {
                throw .badKey("a P-256 key without 32-byte x and y")
            }
            key = try Self.built { () throws(SignatureKeyError) in try SignatureKey(p256X: x, y: y) }
        default:
            throw .badKey("a key of type '\(jwk.kty)'")
        }
    }

    /// The key `make` builds, its refusal told as an unusable key.
    private static func built(_ make: () throws(SignatureKeyError) -> SignatureKey) throws(IDTokenError) -> SignatureKey {
        do {
            return try make()
        } catch {
            throw .badKey(error.reason)
        }
    }

    /// Whether `signature` over `message` is valid for this key with SHA-256 (RS256 or ES256).
    func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        key.verifySHA256(signature: signature, message: message)
    }
}
