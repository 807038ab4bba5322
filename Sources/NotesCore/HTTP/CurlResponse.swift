import Foundation

/// One HTTP answer: status, headers (names lowercased, repeated fields joined by ", "), body
/// (empty when it went to the request's sink).
public struct CurlResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
