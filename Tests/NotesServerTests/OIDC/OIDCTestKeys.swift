import CCrypto
import Foundation
@testable import NotesServer

/// A key pair made by libcrypto in the test, to sign ID tokens the way a provider does and to
/// publish the public half as a JWK. Only tests sign; the server only verifies.
final class TestSigningKey: @unchecked Sendable {
    enum Kind { case rsa, ec }

    let kind: Kind
    let kid: String
    private let key: OpaquePointer

    /// A new key pair; an RSA one of `rsaBits` bits.
    init(_ kind: Kind, kid: String, rsaBits: Int32 = 2048) {
        self.kind = kind
        self.kid = kid
        let context = EVP_PKEY_CTX_new_from_name(nil, kind == .rsa ? "RSA" : "EC", nil)!
        defer { EVP_PKEY_CTX_free(context) }
        precondition(EVP_PKEY_keygen_init(context) == 1)
        switch kind {
        case .rsa: precondition(EVP_PKEY_CTX_set_rsa_keygen_bits(context, rsaBits) == 1)
        case .ec: precondition(EVP_PKEY_CTX_set_group_name(context, "prime256v1") == 1)
        }
        var key: OpaquePointer?
        precondition(EVP_PKEY_generate(context, &key) == 1)
        self.key = key!
    }

    deinit { EVP_PKEY_free(key) }

    var algorithm: String { kind == .rsa ? "RS256" : "ES256" }

    /// The public key as a JWK object.
    var jwk: [String: String] {
        switch kind {
        case .rsa:
            return ["kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
                    "n": Base64URL.encode(bignum(OSSL_PKEY_PARAM_RSA_N)), "e": Base64URL.encode(bignum(OSSL_PKEY_PARAM_RSA_E))]
        case .ec:
            var point = [UInt8](repeating: 0, count: 65)
            var length = 0
            precondition(EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, &point, point.count, &length) == 1 && length == 65)
            return ["kty": "EC", "kid": kid, "use": "sig", "alg": "ES256", "crv": "P-256",
                    "x": Base64URL.encode(Array(point[1..<33])), "y": Base64URL.encode(Array(point[33..<65]))]
        }
    }

    /// `{"keys": [...]}` for these keys.
    static func jwks(_ keys: [TestSigningKey]) -> String {
        let object = ["keys": keys.map(\.jwk)]
        return String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The verification key the server would build from this key's JWK.
    func verificationKey() throws -> VerificationKey {
        let data = try JSONSerialization.data(withJSONObject: jwk)
        return try VerificationKey(JSONDecoder().decode(JSONWebKey.self, from: data))
    }

    /// A compact JWS of `claims` with `header` overrides (`alg`, `kid`), signed by this key.
    func sign(_ claims: [String: Any], header: [String: Any] = [:]) -> String {
        var fullHeader: [String: Any] = ["alg": algorithm, "kid": kid, "typ": "JWT"]
        fullHeader.merge(header) { _, new in new }
        let input = Self.part(fullHeader) + "." + Self.part(claims)
        return input + "." + Base64URL.encode(signature(over: Array(input.utf8)))
    }

    static func part(_ object: [String: Any]) -> String {
        Base64URL.encode(Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
    }

    /// The JWS signature: PKCS #1 v1.5 for RSA, raw `r || s` for ECDSA.
    func signature(over message: [UInt8]) -> [UInt8] {
        let context = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(context) }
        precondition(EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1)
        var length = 0
        precondition(EVP_DigestSign(context, nil, &length, message, message.count) == 1)
        var signature = [UInt8](repeating: 0, count: length)
        precondition(EVP_DigestSign(context, &signature, &length, message, message.count) == 1)
        signature = Array(signature.prefix(length))
        guard kind == .ec else { return signature }
        let parsed = signature.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var pointer: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &pointer, buffer.count)
        }
        let ecdsa = parsed!
        defer { ECDSA_SIG_free(ecdsa) }
        var raw = [UInt8](repeating: 0, count: 64)
        raw.withUnsafeMutableBufferPointer { buffer in
            _ = BN_bn2binpad(ECDSA_SIG_get0_r(ecdsa), buffer.baseAddress, 32)
            _ = BN_bn2binpad(ECDSA_SIG_get0_s(ecdsa), buffer.baseAddress! + 32, 32)
        }
        return raw
    }

    private func bignum(_ name: String) -> [UInt8] {
        var number: OpaquePointer?
        precondition(EVP_PKEY_get_bn_param(key, name, &number) == 1)
        defer { BN_free(number) }
        var bytes = [UInt8](repeating: 0, count: Int((BN_num_bits(number) + 7) / 8))
        _ = BN_bn2bin(number, &bytes)
        return bytes
    }
}

/// Keys made once for the whole run: RSA key generation takes a while.
enum TestKeys {
    static let rsa = TestSigningKey(.rsa, kid: "rsa-1")
    static let ec = TestSigningKey(.ec, kid: "ec-1")
    static let otherRSA = TestSigningKey(.rsa, kid: "rsa-1")
}
