import Foundation
import NotesCore

/// The claims of an ID token (OpenID Connect Core §2) that Notes reads.
struct IDTokenClaims: Decodable, Sendable {
    let iss: String
    let sub: String
    let aud: [String]
    let azp: String?
    /// NumericDate values: seconds since the epoch, possibly fractional.
    let exp: Double
    let iat: Double
    let nbf: Double?
    let nonce: String?
    /// The profile claims: from the ID token, or filled in from the provider's userinfo answer
    /// when the ID token leaves them out (`supplemented(by:)`).
    private(set) var email: String?
    private(set) var emailVerified: Bool
    private(set) var preferredUsername: String?
    /// Whether the provider stated `email_verified` at all (false and absent read the same above).
    private(set) var statesEmailVerified: Bool

    private enum CodingKeys: String, CodingKey {
        case iss, sub, aud, azp, exp, iat, nbf, nonce, email
        case emailVerified = "email_verified"
        case preferredUsername = "preferred_username"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decode(String.self, forKey: .iss)
        sub = try container.decode(String.self, forKey: .sub)
        // `aud` is one string or an array of them (RFC 7519 §4.1.3).
        if let single = try? container.decode(String.self, forKey: .aud) {
            aud = [single]
        } else {
            aud = try container.decode([String].self, forKey: .aud)
        }
        azp = try container.decodeIfPresent(String.self, forKey: .azp)
        exp = try container.decode(Double.self, forKey: .exp)
        iat = try container.decode(Double.self, forKey: .iat)
        nbf = try container.decodeIfPresent(Double.self, forKey: .nbf)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        email = try? container.decodeIfPresent(String.self, forKey: .email)
        (emailVerified, statesEmailVerified) = Self.emailVerified(in: container, forKey: .emailVerified)
        preferredUsername = try? container.decodeIfPresent(String.self, forKey: .preferredUsername)
    }

    /// `email_verified` and whether it is there. Some providers send the string "true": only a
    /// real `true` (or that exact string) counts.
    static func emailVerified<Key: CodingKey>(in container: KeyedDecodingContainer<Key>, forKey key: Key) -> (verified: Bool, stated: Bool) {
        if let flag = try? container.decodeIfPresent(Bool.self, forKey: key) { return (flag, true) }
        if let text = try? container.decodeIfPresent(String.self, forKey: key) { return (text == "true", true) }
        return (false, false)
    }

    /// Decodes the payload of a verified JWS.
    /// - Throws: `IDTokenError.missingClaim` or `.malformed` when a required claim is absent or of the wrong type.
    static func decode(_ payload: [UInt8]) throws(IDTokenError) -> IDTokenClaims {
        do {
            return try JSONDecoder().decode(IDTokenClaims.self, from: Data(payload))
        } catch DecodingError.keyNotFound(let key, _) {
            throw .missingClaim(key.stringValue)
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            throw .missingClaim(context.codingPath.last?.stringValue ?? "?")
        } catch {
            throw .malformed("the payload is not a JSON object")
        }
    }
}

extension IDTokenClaims {
    /// Whether the ID token leaves out a claim the account policy reads (`preferred_username`,
    /// `email`, `email_verified`), so the provider's userinfo answer is worth asking.
    var lacksProfileClaims: Bool {
        preferredUsername == nil || email == nil || !statesEmailVerified
    }

    /// These claims with what the ID token left out taken from `userInfo`, whose `sub` the caller
    /// has checked. The signed ID token wins wherever it speaks. `email` and `email_verified`
    /// travel as a pair: the userinfo answer's verification is only taken with its own address,
    /// and only when the ID token names no other address.
    func supplemented(by userInfo: UserInfoClaims) -> IDTokenClaims {
        var claims = self
        if claims.preferredUsername == nil { claims.preferredUsername = userInfo.preferredUsername }
        if !(claims.email != nil && claims.statesEmailVerified), let address = userInfo.email,
           claims.email.map({ $0.lowercased() == address.lowercased() }) ?? true {
            claims.email = address
            claims.emailVerified = userInfo.emailVerified
            claims.statesEmailVerified = true
        }
        return claims
    }
}

/// Checks an ID token's claims against the sign-in that asked for it (OpenID Connect Core
/// §3.1.3.7), at the server's clock, with a small allowance for clocks that disagree.
struct IDTokenValidator: Sendable {
    /// The issuer configured for the provider (and confirmed by its discovery document).
    let issuer: String
    /// This server's client id at the provider.
    let clientID: String
    /// How far the provider's clock and ours may disagree.
    var allowedSkewSeconds: Double = 60

    /// - Parameters:
    ///   - claims: the claims of a token whose signature was already checked.
    ///   - nonce: the nonce this sign-in sent in its authorization request.
    ///   - nowMilliseconds: the server's clock.
    /// - Throws: `IDTokenError` naming the first rule that fails.
    func validate(_ claims: IDTokenClaims, nonce: String, nowMilliseconds: Int64) throws(IDTokenError) {
        let now = Double(nowMilliseconds) / 1000
        guard claims.iss == issuer else { throw .wrongIssuer }
        guard claims.aud.contains(clientID) else { throw .wrongAudience }
        // Several audiences: the party it was issued to must be named, and be us.
        if claims.aud.count > 1, claims.azp == nil { throw .wrongAudience }
        if let azp = claims.azp, azp != clientID { throw .wrongAudience }
        guard !claims.sub.isEmpty, claims.sub.utf8.count <= 255 else { throw .missingClaim("sub") }
        guard now < claims.exp + allowedSkewSeconds else { throw .expired }
        guard claims.iat <= now + allowedSkewSeconds else { throw .notYetValid }
        if let nbf = claims.nbf, nbf > now + allowedSkewSeconds { throw .notYetValid }
        guard let tokenNonce = claims.nonce else { throw .wrongNonce }
        guard ConstantTime.equal(Array(tokenNonce.utf8), Array(nonce.utf8)) else { throw .wrongNonce }
    }
}
