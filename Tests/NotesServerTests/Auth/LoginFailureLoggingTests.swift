import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// A sign-in that fails for a reason the client did not cause answers a bare 500 and leaves a
/// log line with its request id, as every other route does through the router.
@Suite("Login: unexpected failures")
struct LoginFailureLoggingTests {
    @Test func aLoginThatHitsAnUnexpectedErrorAnswers500AndLogsItWithTheRequestID() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = ServerConfiguration()
        configuration.databasePath = directory.appending("notes.sqlite").path
        let log = LogSink()
        let app = try buildApplication(configuration, log: log.append)
        // A closed database makes the account lookup throw a DatabaseError, not an HTTPError.
        try app.database.close()
        let body = try WireJSON.encoder().encode(LoginRequest(username: "alice", password: "secret words"))
        let request = HTTPRequest(method: "POST", path: "/v1/auth/login", body: Array(body))
        guard case .later(let work) = app.router.respond(to: request) else {
            Issue.record("a login is checked off the connection thread")
            return
        }
        let response = await work()
        #expect(response.status == 500)
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""code":"internal_error""#))
        #expect(!String(decoding: response.body, as: UTF8.self).contains("closed"), "no internal detail reaches the client")
        let line = try #require(log.lines.first { $0.hasPrefix("req=\(request.id) internal error: ") })
        #expect(!line.contains("secret words"))
    }
}
