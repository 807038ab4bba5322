import NotesCore

/// How large an answer from the server may be, and how large a note it may send.
///
/// Every answer body is bounded, so a broken or hostile server cannot make the client buffer
/// without end. The bound follows the server's published limits (`GET /v1/limits`): one note at
/// the note limit, JSON-escaped at worst (six bytes for a control character), or a request at the
/// request limit, plus headroom for the page around it. Before the limits are known the
/// server's default limits stand in; the client asks for the published ones only when an answer
/// or a note goes past those defaults, so an ordinary command costs no extra request.
enum ResponseBudget {
    /// The limits a server has by default (docs/architecture.md, section 3.4), assumed until the published ones are fetched.
    static let defaultLimits = ServerLimits(maxNoteBytes: 10 * 1024 * 1024, maxRequestBytes: 32 * 1024 * 1024,
                                            maxBatchOperations: 500, maxPageSize: 1000, requestsPerMinute: 6000)

    /// Room for a page's other entries and the JSON around them.
    static let headroom = 8 * 1024 * 1024

    /// No answer is ever larger, whatever limits a server publishes: a hostile one could
    /// publish any, and the client is meant to stay within a few hundred MiB.
    static let ceiling = 256 * 1024 * 1024

    /// The bound for answers from a server with `limits`.
    static func maxBytes(for limits: ServerLimits) -> Int {
        let note = limits.maxNoteBytes.multipliedReportingOverflow(by: 6)
        let largest = note.overflow ? ceiling : max(note.partialValue, limits.maxRequestBytes)
        return min(largest, ceiling - headroom) + headroom
    }

    /// The bound before the server's limits are known: 68 MiB.
    static let defaultMaxBytes = maxBytes(for: defaultLimits)

    /// The bound for `/v1/limits` itself, and other answers that are small by nature.
    static let smallMaxBytes = 64 * 1024

    /// "68 MiB", "900 bytes": for messages.
    static func text(_ bytes: Int) -> String {
        if bytes >= 1024 * 1024, bytes % (1024 * 1024) == 0 { return "\(bytes / (1024 * 1024)) MiB" }
        return "\(bytes) bytes"
    }
}
