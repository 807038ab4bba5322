import CCrypto

/// Why libcrypto would not build a public key, as a phrase for a log line.
public struct SignatureKeyError: Error, Sendable, Equatable {
    public let reason: String

    init(_ reason: String) {
        self.reason = reason
    }
}

/// A public key built by libcrypto from its published parts, ready to check SHA-256 signatures:
/// RSA (PKCS #1 v1.5, JWS `RS256`) or ECDSA on P-256 (JWS `ES256`).
///
/// The one owner of its `EVP_PKEY`. `@unchecked Sendable`: after it is built the key is only
/// read, and OpenSSL 3 allows one `EVP_PKEY` to be used by several threads at once for
/// verification (each check makes its own `EVP_MD_CTX`).
public final class SignatureKey: @unchecked Sendable {
    public enum Kind: Sendable { case rsa, ecP256 }

    public let kind: Kind
    private let key: OpaquePointer

    /// RSA keys shorter than this are refused (RFC 7518 §3.3 asks for 2048 bits or more).
    public static let minimumRSABits: Int32 = 2048

    /// An RSA key from its big-endian modulus `n` and exponent `e`.
    /// - Throws: `SignatureKeyError` when libcrypto refuses the parts or the key is shorter than
    ///   `minimumRSABits`.
    public init(rsaModulus n: [UInt8], exponent e: [UInt8]) throws(SignatureKeyError) {
        let built = try Self.build(type: "RSA") { builder, kept throws(SignatureKeyError) in
            try Self.push(n, as: notes_param_rsa_n(), into: builder, keeping: &kept)
            try Self.push(e, as: notes_param_rsa_e(), into: builder, keeping: &kept)
        }
        // Checked before the key is this object's, so a refused key is freed once, here.
        guard EVP_PKEY_get_bits(built) >= Self.minimumRSABits else {
            EVP_PKEY_free(built)
            throw SignatureKeyError("an RSA key shorter than \(Self.minimumRSABits) bits")
        }
        kind = .rsa
        key = built
    }

    /// A P-256 key from its 32-byte big-endian coordinates `x` and `y`.
    /// - Throws: `SignatureKeyError` when a coordinate has another length or the point is not
    ///   on the curve.
    public init(p256X x: [UInt8], y: [UInt8]) throws(SignatureKeyError) {
        guard x.count == 32, y.count == 32 else { throw SignatureKeyError("a P-256 key without 32-byte x and y") }
        kind = .ecP256
        // SEC 1 uncompressed point: 0x04 || x || y. libcrypto checks that it is on the curve.
        let point = [0x04] + x + y
        key = try Self.build(type: "EC") { builder, kept throws(SignatureKeyError) in
            guard OSSL_PARAM_BLD_push_utf8_string(builder, notes_param_group_name(), notes_curve_p256(), 0) == 1 else {
                throw SignatureKeyError("libcrypto refused the curve name")
            }
            // Like the names, the value is read only at `to_param`: it must outlive this closure.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: point.count, alignment: 1)
            buffer.copyBytes(from: point)
            kept.buffers.append(buffer)
            guard OSSL_PARAM_BLD_push_octet_string(builder, notes_param_public_key(), buffer.baseAddress, buffer.count) == 1 else {
                throw SignatureKeyError("libcrypto refused the EC point")
            }
        }
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Whether `signature` over `message` is valid for this key with SHA-256: PKCS #1 v1.5 for
    /// RSA (RS256), ECDSA for P-256 (ES256, whose JWS form is the raw `r || s` pair, converted to
    /// the DER that libcrypto reads). Any malformed input is simply not valid.
    public func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        let encoded: [UInt8]
        switch kind {
        case .rsa: encoded = signature
        case .ecP256:
            guard let der = Self.derECDSASignature(fromRaw: signature, coordinateBytes: 32) else { return false }
            encoded = der
        }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        let result = encoded.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { tbs in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, tbs.baseAddress, tbs.count)
            }
        }
        // Leave no error on this thread's queue for a later, unrelated libcrypto call to find.
        ERR_clear_error()
        return result == 1
    }

    /// The DER `ECDSA-Sig-Value` for a raw JWS signature `r || s`, or `nil` when it has the wrong length.
    static func derECDSASignature(fromRaw raw: [UInt8], coordinateBytes: Int) -> [UInt8]? {
        guard raw.count == 2 * coordinateBytes, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.prefix(coordinateBytes).withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        let s = raw.suffix(coordinateBytes).withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        // ECDSA_SIG_set0 takes ownership of both numbers only when it succeeds.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }

    /// What an `OSSL_PARAM_BLD` references without copying until `OSSL_PARAM_BLD_to_param`:
    /// big numbers and value buffers pushed into it, freed once the parameters are built.
    private struct Kept {
        var numbers: [OpaquePointer] = []
        var buffers: [UnsafeMutableRawBufferPointer] = []
    }

    /// A public key of `type` from the parameters `fill` pushes into an `OSSL_PARAM_BLD`.
    private static func build(type: String, _ fill: (OpaquePointer, inout Kept) throws(SignatureKeyError) -> Void) throws(SignatureKeyError) -> OpaquePointer {
        guard let builder = OSSL_PARAM_BLD_new() else { throw SignatureKeyError("libcrypto is out of memory") }
        var kept = Kept()
        defer {
            OSSL_PARAM_BLD_free(builder)
            kept.numbers.forEach(BN_free)
            kept.buffers.forEach { $0.deallocate() }
            ERR_clear_error()
        }
        try fill(builder, &kept)
        guard let parameters = OSSL_PARAM_BLD_to_param(builder) else { throw SignatureKeyError("libcrypto could not build the key parameters") }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { throw SignatureKeyError("libcrypto has no \(type) support") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
              EVP_PKEY_fromdata(context, &key, notes_evp_pkey_public_key_selection(), parameters) == 1,
              let key else {
            throw SignatureKeyError("libcrypto refused the \(type) key")
        }
        return key
    }

    /// Pushes the big-endian unsigned integer `bytes` as parameter `name`.
    private static func push(_ bytes: [UInt8], as name: UnsafePointer<CChar>, into builder: OpaquePointer,
                             keeping kept: inout Kept) throws(SignatureKeyError) {
        let number = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        guard let number else { throw SignatureKeyError("libcrypto is out of memory") }
        kept.numbers.append(number)
        guard OSSL_PARAM_BLD_push_BN(builder, name, number) == 1 else {
            throw SignatureKeyError("libcrypto refused the RSA key's \(String(cString: name))")
        }
    }
}
