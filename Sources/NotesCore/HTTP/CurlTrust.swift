/// Which certificate authorities a TLS server's certificate is checked against. Verification
/// itself is always on: a certificate that does not chain to one of them, or names another host,
/// fails the request.
///
/// The default is the system's store. As with the `curl` program, `CURL_CA_BUNDLE` (or else
/// `SSL_CERT_FILE`) names a PEM file of authorities to trust instead (curl's `--cacert`), and
/// `SSL_CERT_DIR` a hashed directory of them (curl's `--capath`).
public struct CurlTrust: Sendable, Equatable {
    /// A PEM file of authorities (`CURLOPT_CAINFO`); nil: the system's.
    public var authorityFile: String?
    /// A directory of authorities, named by hash (`CURLOPT_CAPATH`); nil: the system's.
    public var authorityDirectory: String?

    public init(authorityFile: String? = nil, authorityDirectory: String? = nil) {
        self.authorityFile = authorityFile
        self.authorityDirectory = authorityDirectory
    }

    /// The system's store.
    public static let system = CurlTrust()

    /// The trust `environment` asks for, read as the `curl` program reads it.
    public static func from(environment: [String: String]) -> CurlTrust {
        func value(_ name: String) -> String? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            return text
        }
        if let bundle = value("CURL_CA_BUNDLE") { return CurlTrust(authorityFile: bundle) }
        return CurlTrust(authorityFile: value("SSL_CERT_FILE"), authorityDirectory: value("SSL_CERT_DIR"))
    }
}
