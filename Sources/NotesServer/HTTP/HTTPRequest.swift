import Synchronization
import NotesCore

/// A complete HTTP request as handed to the responder, body included.
///
/// Built on an MHD thread once the whole body has been read; every field is a Swift copy, so the
/// value outlives the C connection and may be sent to async work freely.
struct HTTPRequest: Sendable {
    /// Request id, 16 random hex characters, echoed to the client as `X-Request-Id` and used in logs.
    let id: String
    /// The method, uppercased (`GET`, `HEAD`, `PUT`, ...). `HEAD` is passed through as `HEAD`:
    /// the router should answer it like `GET`; libmicrohttpd drops the body on the wire.
    let method: String
    /// The URL path without the query, exactly as libmicrohttpd passes it: already percent-decoded
    /// as a whole (so `%2F` arrives as `/` and cannot be told apart from a separator). Routes should
    /// therefore not depend on encoded slashes. Paths that do not decode to valid UTF-8 never reach
    /// the responder (they get a 400).
    let path: String
    /// Query arguments decoded by libmicrohttpd; for a repeated key the last value wins.
    let query: [String: String]
    /// Request headers in the order received.
    let headers: HTTPHeaders
    /// The request body, at most `Configuration.maxBodyBytes` long; empty when it was streamed.
    let body: [UInt8]
    /// Where the body went instead, when the responder chose to stream it (`BodyAdmission.stream`).
    let bodySink: (any RequestBodySink)?
    /// The client's IP address as text (`127.0.0.1`, `::1`); IPv4-mapped IPv6 addresses are given
    /// in their IPv4 form so rate limits see one client under one name. When the TCP peer is a
    /// trusted proxy (`Configuration.trustedProxies`), this is the client it forwarded for
    /// (`ClientAddress.resolve`), so every per-address limit keys on the real client.
    let remoteAddress: String
    /// Whether the client reached the server over HTTPS: the server itself serves TLS, or a
    /// trusted proxy (`Configuration.trustedProxies`) says so in `X-Forwarded-Proto`
    /// (`ClientAddress.forwardedHTTPS`). Decides the `Secure` flag of the web app's cookies.
    let isSecure: Bool

    /// Creates a request; the server builds these, tests may too (for in-process routing tests).
    init(
        id: String = RequestID.make(),
        method: String,
        path: String,
        query: [String: String] = [:],
        headers: HTTPHeaders = .init(),
        body: [UInt8] = [],
        bodySink: (any RequestBodySink)? = nil,
        remoteAddress: String = "127.0.0.1",
        isSecure: Bool = false
    ) {
        self.id = id
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.bodySink = bodySink
        self.remoteAddress = remoteAddress
        self.isSecure = isSecure
    }
}

/// Generates request ids: 16 lowercase hex characters from the system's secure generator.
enum RequestID {
    /// A fresh id: 32 random bits drawn once per process, then a counter, as 16 hex digits.
    /// Unique within a process and, by the random half, between processes; cheaper than drawing
    /// 64 random bits (a `getrandom` call) for every request. An id is a label, not a secret.
    static func make() -> String {
        let serial = counter.add(1, ordering: .relaxed).newValue
        let value = prefix << 32 | (serial & 0xFFFF_FFFF)
        // Written straight into the string's storage: one allocation, no padding and joining.
        return String(unsafeUninitializedCapacity: 16) { buffer in
            let digits: StaticString = "0123456789abcdef"
            for index in 0..<16 {
                let nibble = Int(truncatingIfNeeded: value >> (60 - 4 * UInt64(index))) & 0xF
                buffer[index] = digits.utf8Start[nibble]
            }
            return 16
        }
    }

    private static let prefix = UInt64(UInt32.random(in: .min ... .max))
    private static let counter = Atomic<UInt64>(0)
}
