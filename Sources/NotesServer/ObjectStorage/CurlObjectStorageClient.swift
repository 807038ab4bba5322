import Foundation
import NotesCore

/// `ObjectStorageClient` over the server's libcurl client (`OutgoingHTTP`): each exchange bounded
/// by an idle timeout and a deadline (`ObjectStorageTimeouts`), every answer bounded in size,
/// TLS always verified, and redirects never followed.
///
/// Bodies go out from their file as they are sent (`pread` on the descriptor, so a file with no
/// name streams like any other) and a 2xx answer to a `.file` request comes in through a file
/// with no name in `temporaryFolder`, so a large object never sits whole in memory; the store's
/// other answers (errors, listings) are held in memory up to their bound.
struct CurlObjectStorageClient: ObjectStorageClient {
    let timeouts: ObjectStorageTimeouts
    /// Where answers taken into a file wait (see `PostgresBlobStore.temporaryFolder`).
    let temporaryFolder: String

    /// The largest error answer read from a request whose success goes to a file: S3's are a
    /// few hundred bytes of XML.
    static let maxErrorAnswerBytes = 1 << 20

    init(timeouts: ObjectStorageTimeouts = ObjectStorageTimeouts(),
         temporaryFolder: String = PostgresBlobStore.defaultTemporaryFolder()) {
        self.timeouts = timeouts
        self.temporaryFolder = temporaryFolder
    }

    func send(_ request: ObjectStorageRequest) throws(ObjectStorageError) -> ObjectStorageAnswer {
        let label = request.label
        guard case .success(let client) = OutgoingHTTP.client else { throw .exchange(.unreachable, label) }
        var curlRequest = CurlRequest(method: request.method, url: request.url.absoluteString, headers: request.headers,
                                      maxResponseBytes: Self.maxErrorAnswerBytes,
                                      idleTimeout: timeouts.idle, deadline: timeouts.deadline)
        switch request.body {
        case .empty: break
        case .bytes(let bytes): curlRequest.body = .bytes(Data(bytes))
        case .file(let descriptor, let size): curlRequest.body = .file(descriptor: descriptor, offset: 0, length: Int64(size))
        }
        var sink: UnlinkedFileSink?
        switch request.answerBody {
        case .memory(let limit):
            curlRequest.maxResponseBytes = limit
        case .file:
            do {
                sink = UnlinkedFileSink(file: try UnlinkedFile(in: temporaryFolder))
            } catch {
                throw .local(label, error.code)
            }
            // An object's size is bounded by what was stored (checked bytes only) and its time
            // by the deadline; an error answer stays in memory, so it keeps a small bound.
            curlRequest.sink = sink
            curlRequest.maxResponseBytes = .max
            curlRequest.maxBufferedBytes = Self.maxErrorAnswerBytes
        }
        switch client.performAndWait(curlRequest) {
        case .success(let answer):
            var file: ContentFile?
            if let sink, (200..<300).contains(answer.status) {
                do {
                    file = ContentFile(descriptor: try sink.file.takeDescriptor(), size: Int64(sink.file.size))
                } catch {
                    throw .local(label, error.code)
                }
            }
            return ObjectStorageAnswer(status: answer.status, headers: answer.headers, body: [UInt8](answer.body), file: file)
        case .failure(let failure):
            if failure.kind == .refusedBySink, let code = sink?.failure { throw .local(label, code) }
            throw .exchange(OutgoingFailure(failure), label)
        }
    }
}

/// Takes a successful answer's body into a file with no name.
///
/// `@unchecked Sendable`: the transfer thread writes while the requesting thread waits, and the
/// requesting thread reads only once the outcome is in (`CurlClient.performAndWait`).
private final class UnlinkedFileSink: CurlBodySink, @unchecked Sendable {
    let file: UnlinkedFile
    /// The `errno` of a failed write.
    private(set) var failure: Int32?

    init(file: UnlinkedFile) {
        self.file = file
    }

    func begin(status: Int, headers: [String: String]) -> Bool { true }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard file.append(bytes) else {
            failure = errno
            return false
        }
        return true
    }
}
