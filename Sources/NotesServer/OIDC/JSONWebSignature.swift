import Foundation

/// The signature algorithms an ID token may use. `none` and the HMAC family (`HS256`, keyed
/// with the client secret) are refused on purpose: they are the classic ways to forge a token.
enum JWSAlgorithm: String, Sendable {
    case rs256 = "RS256"
    case es256 = "ES256"

    /// The key type that checks this algorithm.
    var keyKind: VerificationKey.Kind {
        switch self {
        case .rs256: .rsa
        case .es256: .ecP256
        }
    }
}

/// A JWS in compact serialization (RFC 7515 §7.1): `header.payload.signature`, each base64url.
struct JSONWebSignature: Sendable {
    struct Header: Decodable, Sendable {
        let alg: String
        let kid: String?
        let typ: String?
        /// Extensions the signer insists on (RFC 7515 §4.1.11); Notes knows none, so any is refused.
        let crit: [String]?
    }

    /// The longest compact JWS accepted: ID tokens are a few kilobytes at most.
    static let maxLength = 64 * 1024

    let header: Header
    let algorithm: JWSAlgorithm
    let payload: [UInt8]
    let signature: [UInt8]
    /// The bytes the signature covers: the first two parts exactly as received.
    let signingInput: [UInt8]

    /// Splits and decodes `compact`, refusing any algorithm but RS256 and ES256 before looking further.
    init(compact: String) throws(IDTokenError) {
        guard compact.utf8.count <= Self.maxLength else { throw .malformed("longer than \(Self.maxLength) bytes") }
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("not three dot-separated parts") }
        guard let headerBytes = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]) else {
            throw .malformed("a part is not base64url")
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else {
            throw .malformed("the header is not a JSON object with an alg")
        }
        guard let algorithm = JWSAlgorithm(rawValue: header.alg) else { throw .unsupportedAlgorithm(header.alg) }
        if let crit = header.crit, !crit.isEmpty { throw .malformed("critical header extensions are not supported") }
        guard !signature.isEmpty else { throw .badSignature }
        self.header = header
        self.algorithm = algorithm
        self.payload = payload
        self.signature = signature
        self.signingInput = Array("\(parts[0]).\(parts[1])".utf8)
    }

    /// The key of `keys` meant for this signature: the one with its `kid`, or, when the header
    /// names none, the only key of the right type. `nil` when there is no such key.
    func key(in keys: [VerificationKey]) -> VerificationKey? {
        let candidates = keys.filter { $0.kind == algorithm.keyKind }
        if let kid = header.kid { return candidates.first { $0.id == kid } }
        return candidates.count == 1 ? candidates[0] : nil
    }

    /// Checks the signature with `key`.
    /// - Throws: `IDTokenError.badSignature` when it does not verify or the key is of another type.
    func verify(with key: VerificationKey) throws(IDTokenError) {
        guard key.kind == algorithm.keyKind, key.verifySHA256(signature: signature, message: signingInput) else {
            throw .badSignature
        }
    }
}
