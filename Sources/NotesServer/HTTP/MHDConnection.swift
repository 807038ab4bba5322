import CMicroHTTPD

/// Reads request data out of a libmicrohttpd connection into Swift values.
///
/// Everything is copied while the connection is inside the access handler, so no C pointer
/// outlives the call that produced it.
enum MHDConnection {
    /// The request headers in the order received.
    static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, { context, _, key, value in
                guard let context, let key else { return .YES }
                let name = String(cString: key)
                let text = value.map { String(cString: $0) } ?? ""
                context.assumingMemoryBound(to: HTTPHeaders.self).pointee.add(name: name, value: text)
                return .YES
            }, pointer)
        }
        return headers
    }

    /// The decoded query arguments; a key given without `=` maps to the empty string.
    static func query(of connection: OpaquePointer) -> [String: String] {
        var query: [String: String] = [:]
        withUnsafeMutablePointer(to: &query) { pointer in
            _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, { context, _, key, value in
                guard let context, let key else { return .YES }
                let name = String(cString: key)
                let text = value.map { String(cString: $0) } ?? ""
                context.assumingMemoryBound(to: [String: String].self).pointee[name] = text
                return .YES
            }, pointer)
        }
        return query
    }

    /// One request header's value, or nil when absent.
    static func header(_ name: String, of connection: OpaquePointer) -> String? {
        guard let value = MHD_lookup_connection_value(connection, .HEADER_KIND, name) else {
            return nil
        }
        return String(cString: value)
    }

    /// Queues `response` on `connection`, adding the request id and a default `Content-Type`.
    ///
    /// The body is copied by libmicrohttpd (`MUST_COPY`), so no Swift buffer escapes. Framing
    /// headers from the response are skipped: libmicrohttpd computes `Content-Length` itself.
    /// Returns the status actually queued, or nil if libmicrohttpd refused (the connection then closes).
    static func queue(
        _ response: HTTPResponse,
        requestID: String,
        closeAfter: Bool,
        on connection: OpaquePointer
    ) -> Int? {
        var response = response
        if !(100...599).contains(response.status) {
            response = .error(.internal)
        }
        let handle: OpaquePointer? = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count,
                bytes.count == 0 ? nil : UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                .RESPMEM_MUST_COPY
            )
        }
        guard let handle else { return nil }
        defer { MHD_destroy_response(handle) }
        for (name, value) in response.headers where !isFraming(name) {
            if closeAfter && HTTPHeaders.namesMatch(name, "Connection") { continue }
            // MHD refuses values with CR/LF (header injection); such a header is dropped, not sent.
            _ = MHD_add_response_header(handle, name, value)
        }
        _ = MHD_add_response_header(handle, "X-Request-Id", requestID)
        if !response.body.isEmpty && !response.headers.contains("Content-Type") {
            _ = MHD_add_response_header(handle, "Content-Type", "application/octet-stream")
        }
        if closeAfter {
            _ = MHD_add_response_header(handle, "Connection", "close")
        }
        guard MHD_queue_response(connection, UInt32(response.status), handle) == .YES else {
            return nil
        }
        return response.status
    }

    private static func isFraming(_ name: String) -> Bool {
        HTTPHeaders.namesMatch(name, "Content-Length") || HTTPHeaders.namesMatch(name, "Transfer-Encoding")
    }
}
