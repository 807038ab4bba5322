import Foundation

/// The outgoing HTTP of an object store, one exchange at a time, behind a small interface so
/// the transport (`CurlObjectStorageClient`) can change without touching the S3 protocol code
/// (`S3Bucket`), which builds and signs every request.
///
/// Calls block the calling thread until the answer is in or the deadline passed: the content
/// store is called from the HTTP server's handler threads, which run one request each.
protocol ObjectStorageClient: Sendable {
    /// Sends `request`; an answer with any status is returned, only a failed exchange throws.
    /// - Throws: `ObjectStorageError`.
    func send(_ request: ObjectStorageRequest) throws(ObjectStorageError) -> ObjectStorageAnswer
}

/// One signed request to an object store.
struct ObjectStorageRequest: Sendable {
    enum Body: Sendable {
        case empty
        case bytes([UInt8])
        /// The whole file open at `descriptor` (read from its start, not consumed), `size` bytes.
        case file(descriptor: Int32, size: Int)
    }

    /// Where the answer's body goes.
    enum AnswerBody: Sendable {
        /// Into `ObjectStorageAnswer.body`; an answer larger than `limit` bytes fails the exchange.
        case memory(limit: Int)
        /// Into a file with no name, handed over in `ObjectStorageAnswer.file`.
        case file
    }

    var method: String
    var url: URL
    /// Every header to send (the signed ones and `Authorization` among them).
    var headers: [String: String]
    var body: Body = .empty
    var answerBody: AnswerBody = .memory(limit: 1 << 20)
    /// Names the request in errors, e.g. "put an object": never a key's secret part, never a credential.
    var label: String
}

/// What an object store answered.
struct ObjectStorageAnswer: Sendable {
    let status: Int
    /// Header names in lowercase.
    let headers: [String: String]
    /// The body, for `AnswerBody.memory`.
    let body: [UInt8]
    /// The body, for `AnswerBody.file` with a 2xx status (the caller owns and closes it).
    let file: ContentFile?
}

/// Why an exchange with an object store failed. Descriptions name the operation, never a
/// credential or signature: they are logged.
enum ObjectStorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No usable answer came to the request `what` names; a redirect is never followed (it
    /// would send a signed request elsewhere).
    case exchange(OutgoingFailure, String)
    /// A local failure moving the bytes (`errno`).
    case local(String, Int32)

    var description: String {
        switch self {
        case .exchange(let failure, let what): failure.sentence("the object store", what)
        case .local(let what, let code): "could not move the bytes of \(what) (errno \(code))"
        }
    }
}
