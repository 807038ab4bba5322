import Foundation

/// Where an S3 content store keeps its objects: `--content-store s3://BUCKET/PREFIX`, at
/// `--s3-endpoint` (path-style requests, so any S3-compatible store answers) in `--s3-region`.
struct S3Location: Sendable, Equatable, CustomStringConvertible {
    let bucket: String
    /// Key prefix without leading or trailing `/`; may be empty.
    let prefix: String
    /// `scheme://host[:port]` with no path, e.g. `https://s3.eu-west-1.amazonaws.com`.
    let endpoint: URL
    let region: String

    var description: String { "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)") + " at \(endpoint.absoluteString)" }

    /// Parses `s3://BUCKET[/PREFIX]` and the endpoint URL.
    /// - Throws: `S3ConfigurationError` for a malformed store URL or endpoint.
    init(store: String, endpoint: String?, region: String?) throws {
        guard store.hasPrefix("s3://") else { throw S3ConfigurationError("a content store URL starts with s3:// (got \(store))") }
        let rest = store.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        let prefix = rest.dropFirst(bucket.count).split(separator: "/").joined(separator: "/")
        guard bucket.count >= 3, bucket.count <= 63,
              bucket.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") }) else {
            throw S3ConfigurationError("\(bucket) is not an S3 bucket name (3 to 63 lowercase letters, digits, '-' and '.')")
        }
        guard prefix.utf8.count <= 512, !prefix.contains(where: { $0.isNewline || $0 == "\0" }),
              !prefix.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
            throw S3ConfigurationError("the key prefix in \(store) is not usable")
        }
        let endpointText = endpoint ?? "https://s3.\(region ?? "us-east-1").amazonaws.com"
        guard let url = URL(string: endpointText), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil, url.user == nil, url.password == nil, url.query == nil, url.path.isEmpty || url.path == "/" else {
            throw S3ConfigurationError("--s3-endpoint must be an http:// or https:// URL with a host and no path, user or query")
        }
        self.bucket = bucket
        self.prefix = prefix
        self.endpoint = URL(string: "\(scheme)://\(url.host!)" + (url.port.map { ":\($0)" } ?? ""))!
        self.region = region ?? "us-east-1"
    }

    /// The `Host` header value: the endpoint's host and port as the URL has them.
    var hostHeader: String {
        endpoint.host! + (endpoint.port.map { ":\($0)" } ?? "")
    }

    /// The percent-encoded request path of `key` (or of the bucket, for nil).
    func path(of key: String?) -> String {
        "/" + SigV4Signer.encode(bucket) + (key.map { "/" + SigV4Signer.encode($0, keepingSlashes: true) } ?? "")
    }

    /// `key` under the prefix.
    func key(_ relative: String) -> String {
        prefix.isEmpty ? relative : "\(prefix)/\(relative)"
    }
}
