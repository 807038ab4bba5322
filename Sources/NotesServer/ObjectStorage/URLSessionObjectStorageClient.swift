import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ObjectStorageClient` over Foundation's `URLSession`, bounded as the server's other outgoing
/// HTTP is (`ProviderHTTPClient`): an idle timeout, a deadline for the whole exchange, answers
/// bounded in size, and redirects never followed.
///
/// Bodies go out from their file and answers come in through a file, so a large object never
/// sits whole in memory. `@unchecked Sendable`: the session is set once in `init` and only read.
final class URLSessionObjectStorageClient: NSObject, URLSessionTaskDelegate, ObjectStorageClient, @unchecked Sendable {
    private var session: URLSession!
    private let deadlineSeconds: Int

    /// - Parameters:
    ///   - idleSeconds: how long the store may send nothing before the exchange fails.
    ///   - deadlineSeconds: the longest a whole exchange may take (one upload chunk or one object).
    init(idleSeconds: Int = 15, deadlineSeconds: Int = 120) {
        self.deadlineSeconds = deadlineSeconds
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = TimeInterval(idleSeconds)
        configuration.timeoutIntervalForResource = TimeInterval(deadlineSeconds)
        configuration.httpMaximumConnectionsPerHost = 16
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 2
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    func send(_ request: ObjectStorageRequest) throws(ObjectStorageError) -> ObjectStorageAnswer {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpShouldHandleCookies = false
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let outcome = Mutex<Result<(HTTPURLResponse, Int32?), ObjectStorageError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let label = request.label
        let finish: @Sendable (URL?, URLResponse?, (any Error)?) -> Void = { location, response, error in
            let result: Result<(HTTPURLResponse, Int32?), ObjectStorageError>
            if let error {
                let code = (error as? URLError)?.code
                result = .failure(code == .timedOut ? .timedOut(label) : .unreachable(label))
            } else if let response = response as? HTTPURLResponse {
                if (300..<400).contains(response.statusCode) && response.statusCode != 304 {
                    result = .failure(.redirected(label))
                } else if let location {
                    // Opened here: URLSession removes the file once this handler returns.
                    let fd = open(location.path, O_RDONLY | O_CLOEXEC)
                    result = fd >= 0 ? .success((response, fd)) : .failure(.local(label, errno))
                    unlink(location.path)
                } else {
                    result = .success((response, nil))
                }
            } else {
                result = .failure(.unreachable(label))
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        let task: URLSessionTask
        switch request.body {
        case .empty:
            task = session.downloadTask(with: urlRequest, completionHandler: finish)
        case .bytes(let bytes):
            urlRequest.httpBody = Data(bytes)
            task = session.downloadTask(with: urlRequest, completionHandler: finish)
        case .file(let descriptor, let size):
            // Read through the process's own view of the descriptor, so a file with no name
            // (`UnlinkedFile`) streams from disk like any other.
            urlRequest.setValue(String(size), forHTTPHeaderField: "Content-Length")
            urlRequest.httpBodyStream = InputStream(fileAtPath: "/proc/self/fd/\(descriptor)")
            task = session.downloadTask(with: urlRequest, completionHandler: finish)
        }
        task.resume()
        // URLSession's resource timeout ends the task; this wait is only the backstop.
        if done.wait(timeout: .now() + .seconds(deadlineSeconds + 5)) == .timedOut {
            task.cancel()
            throw .timedOut(label)
        }
        guard let result = outcome.withLock({ $0 }) else { throw .unreachable(label) }
        let (response, fd) = try result.get()
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        guard let fd else {
            return ObjectStorageAnswer(status: response.statusCode, headers: headers, body: [], file: nil)
        }
        var stats = stat()
        guard fstat(fd, &stats) == 0 else {
            let code = errno
            _ = close(fd)
            throw .local(label, code)
        }
        let size = Int(stats.st_size)
        let wantsFile: Bool
        if case .file = request.answerBody { wantsFile = (200..<300).contains(response.statusCode) } else { wantsFile = false }
        if wantsFile {
            return ObjectStorageAnswer(status: response.statusCode, headers: headers, body: [],
                                       file: ContentFile(descriptor: fd, size: Int64(size)))
        }
        defer { _ = close(fd) }
        let limit: Int
        if case .memory(let bound) = request.answerBody { limit = bound } else { limit = 1 << 20 }
        guard size <= limit else { throw .tooLarge(label) }
        var body = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let got = body.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, size - filled, off_t(filled)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw .local(label, got < 0 ? errno : EIO) }
            filled += got
        }
        return ObjectStorageAnswer(status: response.statusCode, headers: headers, body: body, file: nil)
    }

    // MARK: URLSessionTaskDelegate

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
