/// Takes a successful answer's body as it arrives, so a download of any size passes through one
/// network buffer of memory rather than being held whole.
///
/// Called on the client's transfer thread, one call at a time and in order, never after the
/// caller has the outcome. The transfer waits while a call runs, so a sink slower than the
/// network slows the socket down instead of queueing bytes. Returning false stops the transfer
/// (the sink keeps its own reason, for the caller to report).
public protocol CurlBodySink: AnyObject, Sendable {
    /// Whether to take the body of a 2xx answer with `status` and `headers` (names lowercased).
    func begin(status: Int, headers: [String: String]) -> Bool
    /// Takes the next bytes of the body.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool
}
