import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a request to an identity provider gave no usable answer. Descriptions name the provider's
/// endpoint and what went wrong, never a code, token or secret: they are logged.
enum ProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreachable(String)
    case timedOut(String)
    case tooLarge(String)
    /// A redirect to another origin, which is never followed.
    case redirected(String)
    case status(String, Int)
    /// The answer was not what the protocol promises.
    case badAnswer(String)
    /// The token endpoint refused the code (its OAuth `error` value, e.g. `invalid_grant`).
    case refused(String)

    var description: String {
        switch self {
        case .unreachable(let what): "the identity provider could not be reached (\(what))"
        case .timedOut(let what): "the identity provider did not answer in time (\(what))"
        case .tooLarge(let what): "the identity provider's answer was too large (\(what))"
        case .redirected(let what): "the identity provider redirected to another origin (\(what)), which is not followed"
        case .status(let what, let status): "the identity provider answered HTTP \(status) (\(what))"
        case .badAnswer(let why): "the identity provider's answer is unusable: \(why)"
        case .refused(let error): "the identity provider refused the sign-in code (\(error))"
        }
    }
}

/// The server's outgoing HTTP to identity providers, bounded three ways: a deadline for the
/// whole exchange, a size limit on the answer (checked as bytes arrive, so a huge answer is cut
/// off, not buffered), and redirects followed only within the same origin (scheme, host, port).
///
/// One `URLSession` for the process, with this object as its delegate (the session keeps it).
/// `@unchecked Sendable`: its only mutable state, the transfers in flight, is behind a `Mutex`.
final class ProviderHTTPClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Answer: Sendable {
        let status: Int
        let body: Data
    }

    private struct Transfer {
        let label: String
        let origin: String
        let limit: Int
        var body = Data()
        var failure: ProviderError?
        let continuation: CheckedContinuation<Answer, any Error>
    }

    private let transfers = Mutex<[Int: Transfer]>([:])
    private let queue = OperationQueue()
    private var session: URLSession!

    override init() {
        super.init()
        queue.maxConcurrentOperationCount = 1
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.timeoutIntervalForResource = 120
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// Sends `request` and collects the answer.
    /// - Parameters:
    ///   - label: names the request in errors (`discovery`, `jwks`, `token`).
    ///   - timeoutSeconds: the deadline for the whole exchange.
    ///   - maxBytes: the largest answer body accepted.
    /// - Throws: `ProviderError`.
    func send(_ request: URLRequest, label: String, timeoutSeconds: Int, maxBytes: Int) async throws -> Answer {
        var request = request
        request.timeoutInterval = TimeInterval(timeoutSeconds)
        request.httpShouldHandleCookies = false
        let origin = Self.origin(of: request.url)
        let task = session.dataTask(with: request)
        let id = task.taskIdentifier
        let answer = try await withCheckedThrowingContinuation { continuation in
            transfers.withLock { $0[id] = Transfer(label: label, origin: origin, limit: maxBytes, continuation: continuation) }
            task.resume()
            // URLSession's own timeouts count idleness and round fractions down on Linux; this
            // one bounds the whole exchange, however slowly the bytes trickle.
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(timeoutSeconds))
                self?.fail(id, with: .timedOut(label), cancelling: task)
            }
        }
        return answer
    }

    private func fail(_ id: Int, with failure: ProviderError, cancelling task: URLSessionTask) {
        let pending = transfers.withLock { transfers -> Bool in
            guard transfers[id] != nil, transfers[id]?.failure == nil else { return false }
            transfers[id]?.failure = failure
            return true
        }
        if pending { task.cancel() }
    }

    /// `scheme://host:port`, the unit a redirect may not leave.
    static func origin(of url: URL?) -> String {
        guard let url, let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return "" }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }

    // MARK: URLSessionDataDelegate

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let declared = response.expectedContentLength
        let tooLarge = transfers.withLock { transfers -> Bool in
            guard let transfer = transfers[dataTask.taskIdentifier] else { return false }
            if declared > Int64(transfer.limit) {
                transfers[dataTask.taskIdentifier]?.failure = .tooLarge(transfer.label)
                return true
            }
            return false
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overLimit = transfers.withLock { transfers -> Bool in
            guard var transfer = transfers[dataTask.taskIdentifier], transfer.failure == nil else { return false }
            if transfer.body.count + data.count > transfer.limit {
                transfer.failure = .tooLarge(transfer.label)
                transfers[dataTask.taskIdentifier] = transfer
                return true
            }
            transfer.body.append(data)
            transfers[dataTask.taskIdentifier] = transfer
            return false
        }
        if overLimit { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        let sameOrigin = transfers.withLock { transfers -> Bool in
            guard let transfer = transfers[task.taskIdentifier] else { return false }
            if Self.origin(of: request.url) == transfer.origin { return true }
            transfers[task.taskIdentifier]?.failure = .redirected(transfer.label)
            return false
        }
        completionHandler(sameOrigin ? request : nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = transfer.failure {
            transfer.continuation.resume(throwing: failure)
        } else if let error = error as? URLError {
            transfer.continuation.resume(throwing: error.code == .timedOut ? ProviderError.timedOut(transfer.label)
                                                                           : ProviderError.unreachable(transfer.label))
        } else if error != nil {
            transfer.continuation.resume(throwing: ProviderError.unreachable(transfer.label))
        } else if let response = task.response as? HTTPURLResponse {
            if (300..<400).contains(response.statusCode) {
                transfer.continuation.resume(throwing: ProviderError.redirected(transfer.label))
            } else {
                transfer.continuation.resume(returning: Answer(status: response.statusCode, body: transfer.body))
            }
        } else {
            transfer.continuation.resume(throwing: ProviderError.unreachable(transfer.label))
        }
    }
}
