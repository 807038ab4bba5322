import CCurl

/// libcurl's process-wide set-up (`curl_global_init`), done once before the first handle.
enum CurlGlobal {
    /// Swift runs a global's initialiser once, under a lock, whichever thread gets there first:
    /// `curl_global_init` is thread-safe in the libcurl this builds against (7.84 and later).
    private static let initialised: Bool = notes_curl_global_init() == CURLE_OK

    static func ensureInitialised() {
        _ = initialised
    }
}
