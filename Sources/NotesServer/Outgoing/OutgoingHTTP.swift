import Foundation
import NotesCore

/// The server's HTTP client for the services it calls: an S3-compatible object store
/// (`CurlObjectStorageClient`) and identity providers (`ProviderHTTPClient`).
///
/// One NotesCore `CurlClient` for the process, made at the first request, so a server that calls
/// nothing out starts no thread for it: one libcurl multi handle and its thread carry every
/// outgoing request, keeping connections to each service alive between requests. TLS
/// certificates are always verified, against the system's authorities or those
/// `CURL_CA_BUNDLE`, `SSL_CERT_FILE` or `SSL_CERT_DIR` name (`CurlTrust`), and libcurl takes
/// `https_proxy`, `http_proxy`, `all_proxy` and `no_proxy` from the environment, as the `curl`
/// program does. No redirect is ever followed by the client itself.
enum OutgoingHTTP {
    /// The client, or why libcurl could not be set up (each request reports it).
    static let client: Result<CurlClient, CurlFailure> = {
        let environment = ProcessInfo.processInfo.environment
        let configuration = CurlClient.Configuration(userAgent: "notes-server/\(NotesVersion.current)",
                                                     trust: .from(environment: environment))
        return Result { () throws(CurlFailure) in try CurlClient(configuration: configuration) }
    }()
}
