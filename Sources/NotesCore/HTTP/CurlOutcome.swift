import CCurl

/// What libcurl's result code for a finished transfer means, in `CurlFailure`'s terms.
enum CurlOutcome {
    /// nil for success.
    static func failure(_ code: CURLcode) -> CurlFailure? {
        switch code {
        case CURLE_OK: nil
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: CurlFailure(kind: .cannotResolve)
        case CURLE_COULDNT_CONNECT: CurlFailure(kind: .cannotConnect)
        case CURLE_OPERATION_TIMEDOUT: CurlFailure(kind: .timedOut)
        case CURLE_GOT_NOTHING: CurlFailure(kind: .closedWithoutAnswer)
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE, CURLE_SEND_FAIL_REWIND:
            CurlFailure(kind: .connectionLost, detail: text(code))
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            CurlFailure(kind: .untrustedCertificate, detail: text(code))
        case CURLE_SSL_CONNECT_ERROR: CurlFailure(kind: .tlsFailed, detail: text(code))
        default: CurlFailure(kind: .other, detail: text(code))
        }
    }

    /// libcurl's fixed sentence for `code` (never the URL, a header or a credential).
    private static func text(_ code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }
}
