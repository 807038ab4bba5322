import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// What the client retries and what it surfaces at once.
@Suite("Authenticated client: retries and errors")
struct ClientRetryTests {
    let server: ServerURL

    init() throws {
        server = try ServerURL("http://127.0.0.1:9")
    }

    func personalClient(_ fake: ClientFakeServer, retry: RetryPolicy = .fast) -> APIClient {
        let token = fake.issueSession()
        return APIClient(server: server, credential: .personalToken(token), transport: fake, retryPolicy: retry)
    }

    @Test("403, 404, 409 and 412 are surfaced with the server's message and never retried", arguments: [403, 404, 409, 412, 400])
    func clientErrorsAreNotRetried(status: Int) async throws {
        let fake = ClientFakeServer()
        fake.state.withLock { $0.scripted = [ClientFakeServer.error(status, "some_code", "The server says no."), ClientFakeServer.error(200, "x", "y")] }
        let client = personalClient(fake)
        let error = await #expect(throws: APIStatusError.self) { try await client.me() }
        #expect(error?.status == status)
        #expect(error?.code == "some_code")
        #expect(error?.description == "The server says no (HTTP \(status), some_code)")
        #expect(fake.requests.count == 1)
    }

    @Test("5xx and 429 on a GET are retried until it succeeds", arguments: [500, 502, 503, 504, 429])
    func transientErrorsAreRetried(status: Int) async throws {
        let fake = ClientFakeServer()
        fake.state.withLock { $0.scripted = [ClientFakeServer.error(status, "busy", "Busy."), ClientFakeServer.error(status, "busy", "Busy.")] }
        #expect(try await personalClient(fake).me().username == "ada")
        #expect(fake.requests.count == 3)
    }

    @Test("retries are bounded: a server that keeps failing is reported as the error it gave")
    func retriesAreBounded() async throws {
        let fake = ClientFakeServer()
        fake.state.withLock { $0.scripted = Array(repeating: ClientFakeServer.error(503, "unavailable", "Down for maintenance."), count: 10) }
        let error = await #expect(throws: APIStatusError.self) { try await personalClient(fake).me() }
        #expect(error?.status == 503)
        #expect(fake.requests.count == RetryPolicy.fast.maxAttempts)
    }

    @Test("a non-idempotent POST is not replayed after a 5xx")
    func postIsNotRetried() async throws {
        let fake = ClientFakeServer()
        fake.state.withLock { $0.scripted = [ClientFakeServer.error(503, "unavailable", "Down."), ClientFakeServer.error(503, "unavailable", "Down.")] }
        let client = personalClient(fake)
        let error = await #expect(throws: APIStatusError.self) {
            try await client.createPersonalToken(CreateTokenRequest(name: "ci", scope: .read))
        }
        #expect(error?.status == 503)
        #expect(fake.requests.count == 1)
    }

    @Test("a Retry-After longer than the cap is answered at once rather than waited for")
    func longRetryAfterIsNotWaited() async throws {
        let fake = ClientFakeServer()
        fake.state.withLock { $0.scripted = [ClientFakeServer.error(429, "rate_limited", "Slow down.", headers: ["retry-after": "3600"])] }
        let error = await #expect(throws: APIStatusError.self) { try await personalClient(fake).me() }
        #expect(error?.retryAfter == 3600)
        #expect(fake.requests.count == 1)
    }

    @Test("a refused personal token fails with exit 4 and names NOTES_TOKEN, without any refresh")
    func personalTokenRefused() async throws {
        let fake = ClientFakeServer()
        let client = APIClient(server: server, credential: .personalToken("npt_revoked"), transport: fake, retryPolicy: .fast)
        let error = await #expect(throws: CLIError.self) { try await client.me() }
        #expect(error?.exitCode == .signInRequired)
        #expect(error?.message.contains("NOTES_TOKEN") == true)
        #expect(fake.refreshCalls == 0)
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
}
