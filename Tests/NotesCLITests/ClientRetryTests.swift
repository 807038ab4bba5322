import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// What the client retries and what it surfaces at once. Answers the real server gives (404,
/// 409, 412, 400, a refused token) come from the real server; those only a misbehaving server
/// gives (5xx, 429, `Retry-After`, a reset connection) from a `ScriptedHTTPServer` on a real
/// loopback socket, so the client's real libcurl transport is what is tested.
@Suite("Authenticated client: retries and errors")
struct ClientRetryTests {
    /// A client with a personal token for `server`, retrying per `retry`.
    static func client(_ server: ScriptedHTTPServer, retry: RetryPolicy = .fast) throws -> APIClient {
        APIClient(server: try ServerURL(server.baseURL), credential: .personalToken("npt_scripted"), retryPolicy: retry)
    }

    static let user = Data(#"{"id":1,"username":"ada","created_at":"2026-01-01T00:00:00.000Z"}"#.utf8)
    static let ok = ScriptedHTTPServer.Reply.respond(status: 200, headers: ["Content-Type": "application/json"], body: user)

    @Test("404, 409, 412 and 400 from the real server are surfaced with its error code, each sent exactly once")
    func clientErrorsAreNotRetried() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            try await harness.createNotes([("taken.md", "first\n")])
            let client = try harness.apiClient()
            let existing = try #require(try await client.note(atPath: NotePath("taken.md")))
            let missing = NoteID().value

            let notFound = await #expect(throws: ClientError.self) { try await client.rawContent(of: NoteID(missing)!) }
            #expect(notFound?.apiStatus?.status == 404)
            var clash = try APIRequest.json("PUT", "/v1/notes/\(NoteID().value)", PutNoteRequest(path: "TAKEN.md", content: "second\n"))
            clash.headers["If-None-Match"] = "*"
            let conflict = await #expect(throws: ClientError.self) { try await client.send(clash) }
            #expect(conflict?.apiStatus?.status == 409)
            #expect(conflict?.apiStatus?.code == "path_taken")
            var stale = try APIRequest.json("PUT", "/v1/notes/\(existing.id.value)", PutNoteRequest(path: "taken.md", content: "edit\n"))
            stale.headers["If-Match"] = "\"\(existing.rev + 5)\""
            let precondition = await #expect(throws: ClientError.self) { try await client.send(stale) }
            #expect(precondition?.apiStatus?.status == 412)
            let badRequest = await #expect(throws: ClientError.self) { try await client.listNotes(limit: 0) }
            #expect(badRequest?.apiStatus?.status == 400)

            #expect(try await waitUntil { harness.logCount("GET /v1/notes 400") == 1 })
            #expect(harness.logCount("GET /v1/notes/\(missing) 404") == 1)
            #expect(harness.logCount(" 409 ") == 1)
            #expect(harness.logCount("PUT /v1/notes/\(existing.id.value) 412") == 1)
        }
    }

    @Test("a refused personal token fails with exit 4 and names NOTES_TOKEN, after one request and no refresh")
    func personalTokenRefused() async throws {
        try await LiveServer.with(account: .added) { harness in
            let result = try await harness.notes(["whoami"], environment: ["NOTES_TOKEN": "npt_revoked", "NOTES_SERVER": harness.serverURL])
            #expect(result.exitCode == 4)
            #expect(result.stderr.contains("NOTES_TOKEN"))
            #expect(try await waitUntil { harness.logCount("GET /v1/me 401") == 1 })
            #expect(harness.logCount("/v1/auth/refresh") == 0)
        }
    }

    @Test("5xx and 429 on a GET are retried until it succeeds", arguments: [500, 502, 503, 504, 429])
    func transientErrorsAreRetried(status: Int) async throws {
        let server = try ScriptedHTTPServer(replies: [.error(status, "busy", "Busy."), .error(status, "busy", "Busy.")], then: Self.ok)
        defer { server.stop() }
        #expect(try await Self.client(server).me().username == "ada")
        #expect(server.requests.map(\.path) == ["/v1/me", "/v1/me", "/v1/me"])
    }

    @Test("retries are bounded: a server that keeps failing is reported as the error it gave")
    func retriesAreBounded() async throws {
        let server = try ScriptedHTTPServer(replies: [], then: .error(503, "unavailable", "Down for maintenance."))
        defer { server.stop() }
        let error = await #expect(throws: ClientError.self) { try await Self.client(server).me() }
        #expect(error?.apiStatus?.status == 503)
        #expect(error?.apiStatus?.description == "Down for maintenance (HTTP 503, unavailable)")
        #expect(server.requests.count == RetryPolicy.fast.maxAttempts)
    }

    @Test("a non-idempotent POST is not replayed after a 5xx or a reset connection")
    func postIsNotRetried() async throws {
        let server = try ScriptedHTTPServer(replies: [.error(503, "unavailable", "Down.")], then: .dropConnection)
        defer { server.stop() }
        let client = try Self.client(server)
        let error = await #expect(throws: ClientError.self) {
            try await client.createPersonalToken(CreateTokenRequest(name: "ci", scope: .read))
        }
        #expect(error?.apiStatus?.status == 503)
        #expect(server.requests.count == 1)
        let dropped = await #expect(throws: ClientError.self) { try await client.createPersonalToken(CreateTokenRequest(name: "ci", scope: .read)) }
        #expect(dropped?.isUnreachable == true)
        #expect(server.requests.count == 2)
    }

    @Test("a GET whose connection is reset is retried on a new connection")
    func resetConnectionIsRetried() async throws {
        let server = try ScriptedHTTPServer(replies: [.dropConnection, .dropConnection], then: Self.ok)
        defer { server.stop() }
        #expect(try await Self.client(server).me().username == "ada")
        #expect(server.requests.count == 3)
    }

    @Test("a GET whose connection is closed without an answer (a server dying mid-request) is retried, and reported unreachable when it keeps happening")
    func closedWithoutAnswerIsRetriedThenUnreachable() async throws {
        let closeSilently = ScriptedHTTPServer.Reply.raw { _ in }
        let recovering = try ScriptedHTTPServer(replies: [closeSilently, closeSilently], then: Self.ok)
        defer { recovering.stop() }
        #expect(try await Self.client(recovering).me().username == "ada")
        #expect(recovering.requests.count == 3)

        let dead = try ScriptedHTTPServer(replies: [], then: closeSilently)
        defer { dead.stop() }
        let error = await #expect(throws: ClientError.self) { try await Self.client(dead).me() }
        #expect(error?.isUnreachable == true)
    }

    @Test("a Retry-After longer than the cap is answered at once rather than waited for")
    func longRetryAfterIsNotWaited() async throws {
        let server = try ScriptedHTTPServer(replies: [.error(429, "rate_limited", "Slow down.", headers: ["Retry-After": "3600"])], then: Self.ok)
        defer { server.stop() }
        let error = await #expect(throws: ClientError.self) { try await Self.client(server).me() }
        #expect(error?.apiStatus?.status == 429)
        #expect(error?.apiStatus?.retryAfter == 3600)
        #expect(server.requests.count == 1)
    }

    @Test("a Retry-After given as an HTTP date is waited out before the retry")
    func retryAfterDateIsHonoured() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        // An HTTP date has whole seconds: three seconds past the current whole second is between
        // two and three seconds ahead, so even a slow request leaves the client at least one to wait.
        let date = formatter.string(from: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) + 3))
        let server = try ScriptedHTTPServer(replies: [.error(503, "busy", "Busy.", headers: ["Retry-After": date])], then: Self.ok)
        defer { server.stop() }
        #expect(try await Self.client(server, retry: RetryPolicy(maxAttempts: 2, maxRetryAfter: 5)).me().username == "ada")
        let times = server.requests.map(\.receivedAt)
        try #require(times.count == 2)
        #expect(times[1].timeIntervalSince(times[0]) >= 1)
    }

    @Test("Retry-After is read as seconds or as an HTTP date, and backoff waits stay within bounds")
    func retryAfterAndBackoff() {
        let now = Date(timeIntervalSince1970: 1_000_000_000)
        #expect(RetryPolicy.retryAfterSeconds("7") == 7)
        #expect(RetryPolicy.retryAfterSeconds("Sun, 09 Sep 2001 01:47:00 GMT", now: now) == 20)
        #expect(RetryPolicy.retryAfterSeconds("soon") == nil)
        let policy = RetryPolicy.standard
        #expect(policy.delay(beforeRetry: 1, retryAfter: 120) == policy.maxRetryAfter)
        for retry in 1...6 {
            let delay = policy.delay(beforeRetry: retry, retryAfter: nil)
            let ceiling = min(policy.maxDelay, policy.baseDelay * pow(2, Double(retry - 1)))
            #expect(delay >= ceiling / 2 && delay <= ceiling)
        }
    }

    @Test("limits asked for while the server is down are asked for again once it answers: a watcher started offline learns them")
    func limitsAreAskedAgainAfterAnOutage() async throws {
        let arguments = ["--max-note-size", "1K"]
        // The database outlives the first server: the second one starts on it.
        let database = try await TestDatabase.make()
        let first = try await TestServer(extraArguments: arguments, database: database.location)
        let port = first.port
        let client = APIClient(server: try ServerURL(first.baseURL.absoluteString), credential: .anonymous, retryPolicy: .fast)
        _ = await first.stop()
        #expect(await client.fetchLimits() == ResponseBudget.defaultLimits, "no answer: the defaults, for now")
        let second = try await TestServer.restarted(database: database.location, port: port, extraArguments: arguments)
        #expect(await client.fetchLimits().maxNoteBytes == 1024)
        _ = await second.stop()
        await database.drop()
    }
}
