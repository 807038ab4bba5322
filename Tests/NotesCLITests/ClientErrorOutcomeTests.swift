import Foundation
import Testing
@testable import notes_cli

/// `CLI.outcome(of:)` is the one place a client failure becomes an exit code and a sentence:
/// the documented codes (4 sign in, 5 unreachable, 1 the rest) and the cause kept in the text.
@Suite("Client errors: exit codes and sentences chosen at the top")
struct ClientErrorOutcomeTests {
    static func server() throws -> ServerURL { try ServerURL("http://127.0.0.1:9") }

    static func cases() throws -> [(ClientError, ExitCode, String)] {
        let server = try server()
        let refused = APIStatusError(status: 401, body: Data(#"{"error":{"code":"account_disabled","message":"The account is disabled."}}"#.utf8))
        let gone = APIStatusError(status: 503, body: Data())
        return [
            (.sessionEnded, .signInRequired, "session expired or revoked: run `notes login`"),
            (.renewalRefused(refused), .signInRequired, "the server refused to renew the session (The account is disabled.): run `notes login`"),
            (.tokenRefused, .signInRequired, "the server refused the token in NOTES_TOKEN"),
            (.unreachable(server: server, cause: TransportError(kind: .cannotConnect, description: "connection refused")),
             .serverUnreachable, "cannot reach http://127.0.0.1:9: connection refused"),
            (.unreachable(server: server, cause: TransportError(kind: .connectionLost, description: "the connection was lost")),
             .serverUnreachable, "cannot reach http://127.0.0.1:9: the connection was lost"),
            (.unreachable(server: server, cause: TransportError(kind: .deadlineExceeded, description: "gave up")),
             .serverUnreachable, "http://127.0.0.1:9 is too slow: gave up"),
            (.transportFailed(server: server, cause: TransportError(kind: .other, description: "TLS failed")),
             .failure, "request to http://127.0.0.1:9 failed: TLS failed"),
            (.status(gone), .failure, "service unavailable (HTTP 503, http_503)"),
            (.redirectRefused(TransportError(kind: .redirected, description: "redirected")), .failure, "redirected"),
            (.answerTooLarge(TransportError(kind: .tooLarge, description: "too large")), .failure, "too large"),
            (.contentMismatch(path: "a.md"), .failure, "the server sent a.md with content that does not match its hash"),
            (.noteOverLimit(path: "a.md", bytes: 9, limit: 8), .failure, "over its published note limit of 8 bytes"),
            (.answerNotUnderstood(what: "GET /v1/me", reason: "bad"), .failure, "the server's answer to GET /v1/me was not understood (bad)"),
        ]
    }

    @Test("each client failure maps to its documented exit code and a sentence that keeps the cause")
    func everyCaseHasItsExitCodeAndSentence() throws {
        for (error, exitCode, sentence) in try Self.cases() {
            let outcome = CLI.outcome(of: error)
            #expect(outcome.exitCode == exitCode, "\(error)")
            #expect(outcome.sentence.contains(sentence), "\(outcome.sentence)")
            #expect(String(describing: error) == outcome.sentence)
        }
    }

    @Test("a failure with the server's answer keeps the status, code and message for callers to match")
    func statusKeepsTheServerError() throws {
        let error = ClientError.status(APIStatusError(status: 404, body: Data(#"{"error":{"code":"not_found","message":"No such note."}}"#.utf8)))
        #expect(error.apiStatus?.status == 404)
        #expect(error.apiStatus?.code == "not_found")
        #expect(CLI.outcome(of: error).sentence == "No such note (HTTP 404, not_found)")
        #expect(!error.endsSession && !error.isUnreachable)
    }
}
