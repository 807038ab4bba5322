import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads request data out of a libmicrohttpd connection into Swift values.
///
/// Everything is copied while the connection is inside the access handler, so no C pointer
/// outlives the call that produced it.
enum MHDConnection {
    /// The request headers in the order received.
    ///
    /// No NUL check here: libmicrohttpd (0.9.75) already ends a header value at a NUL while
    /// parsing, before any callback sees it, so the sizes never show one.
    static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, { context, _, key, keySize, value, valueSize in
                guard let context, let key else { return .YES }
                let name = UnsafeRawBufferPointer(start: key, count: keySize)
                let text = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
                context.assumingMemoryBound(to: HTTPHeaders.self).pointee
                    .add(name: String(decoding: name, as: UTF8.self), value: String(decoding: text, as: UTF8.self))
                return .YES
            }, pointer)
        }
        return headers
    }

    /// How many bytes the request's header fields took on the wire, counting each as
    /// `name: value` and its line end; sizes only, nothing copied.
    static func headerBytes(of connection: OpaquePointer) -> Int {
        var total = 0
        withUnsafeMutablePointer(to: &total) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, { context, _, _, keySize, value, valueSize in
                guard let context else { return .YES }
                context.assumingMemoryBound(to: Int.self).pointee += keySize + (value == nil ? 0 : valueSize) + 4
                return .YES
            }, pointer)
        }
        return total
    }

    /// The decoded query arguments (a key given without `=` maps to the empty string; for a
    /// repeated key the last value wins), or nil when a key or value holds a NUL byte (`%00`).
    static func query(of connection: OpaquePointer) -> [String: String]? {
        let (pairs, hasNUL) = values(of: connection, kind: .GET_ARGUMENT_KIND)
        guard !hasNUL else { return nil }
        var query: [String: String] = [:]
        for (name, value) in pairs { query[name] = value }
        return query
    }

    /// Pairs of one kind, copied with their true byte lengths.
    ///
    /// The `_n` variant matters: a C string stops at the first NUL, so `q=fox%00bar` would
    /// silently arrive as `fox`, and a request could mean one thing to a proxy and another here.
    /// Invalid UTF-8 is repaired with U+FFFD, as `String(cString:)` would.
    private static func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> (pairs: [(String, String)], hasNUL: Bool) {
        var collected = (pairs: [(String, String)](), hasNUL: false)
        withUnsafeMutablePointer(to: &collected) { pointer in
            _ = MHD_get_connection_values_n(connection, kind, { context, _, key, keySize, value, valueSize in
                guard let context, let key else { return .YES }
                let name = UnsafeRawBufferPointer(start: key, count: keySize)
                let text = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
                let collected = context.assumingMemoryBound(to: (pairs: [(String, String)], hasNUL: Bool).self)
                if name.contains(0) || text.contains(0) { collected.pointee.hasNUL = true }
                collected.pointee.pairs.append((String(decoding: name, as: UTF8.self), String(decoding: text, as: UTF8.self)))
                return .YES
            }, pointer)
        }
        return collected
    }

    /// One request header's value, or nil when absent.
    static func header(_ name: String, of connection: OpaquePointer) -> String? {
        guard let value = MHD_lookup_connection_value(connection, .HEADER_KIND, name) else {
            return nil
        }
        return String(cString: value)
    }

    /// Queues `response` on `connection`, adding the request id, `nosniff` and a default `Content-Type`.
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
        let handle: OpaquePointer?
        if let file = response.file {
            // libmicrohttpd owns the descriptor from here and closes it when the answer is sent.
            guard let fd = file.take() else { return nil }
            handle = MHD_create_response_from_fd_at_offset64(UInt64(file.length), fd, UInt64(file.offset))
            if handle == nil { close(fd) }
        } else {
            handle = response.body.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(
                    bytes.count,
                    bytes.count == 0 ? nil : UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                    .RESPMEM_MUST_COPY
                )
            }
        }
        guard let handle else { return nil }
        defer { MHD_destroy_response(handle) }
        for (name, value) in response.headers where !isFraming(name) {
            if closeAfter && HTTPHeaders.namesMatch(name, "Connection") { continue }
            // MHD refuses values with CR/LF (header injection); such a header is dropped, not sent.
            _ = MHD_add_response_header(handle, name, value)
        }
        _ = MHD_add_response_header(handle, "X-Request-Id", requestID)
        // Every answer, errors included: a browser must never sniff a note's bytes into HTML.
        _ = MHD_add_response_header(handle, "X-Content-Type-Options", "nosniff")
        if (!response.body.isEmpty || response.file != nil) && !response.headers.contains("Content-Type") {
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
