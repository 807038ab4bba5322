import Foundation
import NotesCommandLine
import Testing
@testable import notes_cli

/// The client layer's own errors (accounts, sign-in, the credentials file) keep what went wrong,
/// and `CLI.outcome(of:)` alone gives them their documented exit code and sentence.
@Suite("Account, sign-in and credentials errors: exit codes and sentences chosen at the top")
struct ClientLayerOutcomeTests {
    @Test("every missing account is exit 4 with what to run; a binding says why it needs a sign-in")
    func accountErrorsAreSignInRequired() throws {
        let server = try ServerURL("http://127.0.0.1:9")
        let cases: [(AccountError, String)] = [
            (.notSignedIn, "not signed in: run `notes login --server URL`"),
            (.notSignedInTo(server: server, username: "ada"),
             "not signed in to http://127.0.0.1:9 as ada: run `notes login --server http://127.0.0.1:9 --username ada`"),
            (.folderAccountNotSignedIn(folder: "/n", account: "ada", server: server, signedIn: ["bob"]),
             "/n belongs to ada on http://127.0.0.1:9, but only bob is signed in there; nothing was changed. "
                + "Run `notes login --server http://127.0.0.1:9 --username ada`"),
            (.foreignToken(owner: "bob", folder: "/n", account: "ada", server: "http://127.0.0.1:9"),
             "NOTES_TOKEN belongs to bob, but /n belongs to ada on http://127.0.0.1:9; nothing was changed. "
                + "Unset NOTES_TOKEN, or set it to a token of ada's"),
            (.sessionUnidentified, "the stored session does not say whose it is: run `notes login`"),
            (.signInBeforeBinding(cause: ClientError.sessionEnded),
             "session expired or revoked: run `notes login` first: a folder is bound to the account you sign in as"),
        ]
        for (error, sentence) in cases {
            #expect(CLI.outcome(of: error).exitCode == .signInRequired, "\(error)")
            #expect(CLI.outcome(of: error).sentence == sentence)
            #expect("\(error)" == sentence, "an interpolated error reads as the report at exit")
        }
    }

    @Test("sign-in, credentials and stdout failures are exit 1 and keep the server's or the system's reason")
    func signInAndCredentialsAreFailures() throws {
        let server = try ServerURL("http://127.0.0.1:9")
        let refusal = APIStatusError(status: 400, body: Data(#"{"error":{"code":"invalid_grant","message":"The code was used."}}"#.utf8))
        let cases: [(any Error, String)] = [
            (SignInError.tooManyAttempts(server: server, retryAfter: 4.2), "too many sign-in attempts on http://127.0.0.1:9: try again in 5 s"),
            (SignInError.codeRefused(server: server, refusal: refusal), "http://127.0.0.1:9 refused the sign-in code: The code was used."),
            (CredentialsError.notWritten(path: "/c/credentials.json", errno: ENOSPC),
             "cannot write /c/credentials.json: \(String(cString: strerror(ENOSPC)))"),
            (CredentialsError.lockTimedOut(path: "/c/credentials.lock", seconds: 60),
             "another notes process has held /c/credentials.lock for 60 s; try again"),
            (OutputError(errno: EPIPE), "cannot write to stdout: \(String(cString: strerror(EPIPE)))"),
        ]
        for (error, sentence) in cases {
            #expect(CLI.outcome(of: error).exitCode == .failure, "\(error)")
            #expect(CLI.outcome(of: error).sentence == sentence)
        }
    }

    @Test("a usage error reached through outcome is exit 2")
    func usageError() {
        #expect(CLI.outcome(of: UsageError("--limit must be at least 1")) == (.usage, "--limit must be at least 1"))
    }
}
