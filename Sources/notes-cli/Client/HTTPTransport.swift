import Foundation
import NotesCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request as the client sends it, free of Foundation's reference types.
struct HTTPRequest: Sendable {
    var method: String
    var url: URL
    var headers: [String: String] = [:]
    var body: Data?
}

/// One HTTP answer: status, headers (names lowercased), body.
struct HTTPResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    /// The header `name` (any case).
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why a request got no HTTP answer at all.
struct TransportError: Error, Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        /// Nothing reached the server (refused, no route, DNS): always safe to retry.
        case cannotConnect
        /// The request may or may not have reached the server.
        case timedOut
        case connectionLost
        case other
    }

    var kind: Kind
    var description: String
}

/// The process's one URLSession (keep-alive reuses its connections across all commands' requests).
///
/// The only transport: tests that need a misbehaving server run a real one on a loopback socket
/// (`ScriptedHTTPServer`), so what they exercise is this code and URLSession, never a stand-in.
struct URLSessionTransport: Sendable {
    /// Shared by the whole process, as URLSession is meant to be.
    static let shared = URLSessionTransport()

    private let session: URLSession

    private init() {
        let configuration = URLSessionConfiguration.ephemeral
        // Whole seconds: FoundationNetworking truncates fractions (1.5 s fires at 1 s).
        configuration.timeoutIntervalForRequest = 30
        configuration.timeoutIntervalForResource = 300
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpShouldSetCookies = false
        configuration.httpAdditionalHeaders = ["User-Agent": "notes/\(NotesVersion.current)"]
        session = URLSession(configuration: configuration)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError {
            throw Self.transportError(error)
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportError(kind: .other, description: "the answer was not HTTP")
        }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: data)
    }

    private static func transportError(_ error: URLError) -> TransportError {
        switch error.code {
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet:
            TransportError(kind: .cannotConnect, description: reason(error))
        case .timedOut:
            TransportError(kind: .timedOut, description: "the request timed out")
        case .networkConnectionLost:
            TransportError(kind: .connectionLost, description: "the connection was lost")
        default:
            TransportError(kind: .other, description: reason(error))
        }
    }

    private static func reason(_ error: URLError) -> String {
        switch error.code {
        case .cannotConnectToHost: "connection refused"
        case .cannotFindHost, .dnsLookupFailed: "unknown host"
        case .notConnectedToInternet: "no network"
        default: error.localizedDescription
        }
    }
}
