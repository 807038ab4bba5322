import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// AWS Signature Version 4 for requests to an S3-compatible store: the canonical request, the
/// string to sign and the `Authorization` header, as AWS's "Authenticating Requests (AWS
/// Signature Version 4)" lays them out. The keyed digests are libcrypto's (`HMACSHA256`).
///
/// The signed headers always include `host`, `x-amz-content-sha256` and `x-amz-date`; the
/// payload's SHA-256 is named in `x-amz-content-sha256`, so the store also checks the body.
struct SigV4Signer: Sendable {
    let credentials: S3Credentials
    let region: String
    var service = "s3"

    /// What a signature covers and the values the request must carry.
    struct Signed: Equatable {
        let canonicalRequest: String
        let stringToSign: String
        let signature: String
        let authorization: String
    }

    /// Signs a request.
    /// - Parameters:
    ///   - path: the URI path as sent, each segment already percent-encoded (`S3Key.encodedPath`).
    ///   - query: the query parameters, not encoded.
    ///   - headers: every header to sign (names in any case), `host`, `x-amz-content-sha256` and
    ///     `x-amz-date` among them.
    ///   - payloadHash: the body's SHA-256 as lowercase hex.
    ///   - date: the request's time, as also sent in `x-amz-date`.
    func sign(method: String, path: String, query: [(String, String)], headers: [(String, String)],
              payloadHash: String, date: Date) -> Signed {
        let canonicalHeaders = headers
            .map { (name: $0.0.lowercased(), value: Self.trimmed($0.1)) }
            .sorted { $0.name < $1.name }
        let signedHeaders = canonicalHeaders.map(\.name).joined(separator: ";")
        let canonicalRequest = [
            method,
            path.isEmpty ? "/" : path,
            Self.canonicalQuery(query),
            canonicalHeaders.map { "\($0.name):\($0.value)\n" }.joined(),
            signedHeaders,
            payloadHash,
        ].joined(separator: "\n")
        let stamp = Self.timestamp(date)
        let day = String(stamp.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", stamp, scope, SHA256.hex(of: canonicalRequest)].joined(separator: "\n")
        var key = HMACSHA256.code(for: day, key: Array("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [region, service, "aws4_request"] { key = HMACSHA256.code(for: part, key: key) }
        let signature = Hex.encode(HMACSHA256.code(for: stringToSign, key: key))
        let authorization = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), "
            + "SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return Signed(canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature, authorization: authorization)
    }

    /// `YYYYMMDDTHHMMSSZ` in UTC, the form of `x-amz-date`.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
        let day = String(parts.tm_year + 1900) + two(parts.tm_mon + 1) + two(parts.tm_mday)
        return day + "T" + two(parts.tm_hour) + two(parts.tm_min) + two(parts.tm_sec) + "Z"
    }

    /// Parameters sorted by encoded name (then value), each `name=value` percent-encoded.
    static func canonicalQuery(_ query: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { (name: encode($0.0), value: encode($0.1)) }
        let sorted = encoded.sorted { left, right in left.name == right.name ? left.value < right.value : left.name < right.name }
        return sorted.map { pair in pair.name + "=" + pair.value }.joined(separator: "&")
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters, as SigV4 asks
    /// (`/` too, unless `keepingSlashes`: an object key's path).
    static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) || (keepingSlashes && byte == UInt8(ascii: "/")) {
                out.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                out += "%" + Hex.encode([byte]).uppercased()
            }
        }
        return out
    }

    /// RFC 3986's unreserved characters: letters, digits, `-`, `_`, `.` and `~`.
    private static let unreserved = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~".utf8))

    /// A header value with its ends trimmed and inner runs of spaces made one.
    private static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}
