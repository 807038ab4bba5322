import CCurl

/// One libcurl easy handle: the options of one transfer, and the header list it sends.
///
/// Owned by one `CurlTransfer`. It is configured on the caller's thread before it reaches the
/// multi handle, used only on the multi handle's thread while there, and cleaned up (with its
/// header list, which libcurl does not copy) when the transfer goes.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?

    /// - Throws: `CurlFailure` when libcurl cannot make a handle (out of memory).
    init() throws(CurlFailure) {
        CurlGlobal.ensureInitialised()
        guard let handle = curl_easy_init() else {
            throw CurlFailure(kind: .other, detail: "libcurl could not make a transfer handle")
        }
        self.handle = handle
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
    }

    func set(_ option: CURLoption, _ value: Int) throws(CurlFailure) {
        try Self.check(notes_curl_set_long(handle, option, value), option)
    }

    func set(_ option: CURLoption, offset value: Int64) throws(CurlFailure) {
        try Self.check(notes_curl_set_offset(handle, option, curl_off_t(value)), option)
    }

    /// A string option (libcurl keeps its own copy).
    func set(_ option: CURLoption, _ value: String) throws(CurlFailure) {
        try Self.check(notes_curl_set_string(handle, option, value), option)
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws(CurlFailure) {
        try Self.check(notes_curl_set_pointer(handle, option, value), option)
    }

    func set(_ option: CURLoption, callback: notes_curl_data_callback) throws(CurlFailure) {
        try Self.check(notes_curl_set_data_callback(handle, option, callback), option)
    }

    func setSeek(_ callback: notes_curl_seek_callback) throws(CurlFailure) {
        try Self.check(notes_curl_set_seek_callback(handle, callback), CURLOPT_SEEKFUNCTION)
    }

    /// Sends `lines` (`Name: value`) as the request's header fields, in place of any set before.
    func setHeaders(_ lines: [String]) throws(CurlFailure) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let longer = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw CurlFailure(kind: .other, detail: "libcurl could not hold the request's header fields")
            }
            list = longer
        }
        do throws(CurlFailure) {
            try Self.check(notes_curl_set_list(handle, CURLOPT_HTTPHEADER, list), CURLOPT_HTTPHEADER)
        } catch {
            curl_slist_free_all(list)
            throw error
        }
        curl_slist_free_all(headerList)
        headerList = list
    }

    private static func check(_ code: CURLcode, _ option: CURLoption) throws(CurlFailure) {
        guard code != CURLE_OK else { return }
        throw CurlFailure(kind: .other, detail: "libcurl refused option \(option.rawValue): \(String(cString: curl_easy_strerror(code)))")
    }
}

@available(*, unavailable)
extension CurlEasy: Sendable {}
