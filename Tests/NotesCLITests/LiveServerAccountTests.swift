import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// `LiveServer.with(account:)` is what every live test trusts about who exists and who is signed
/// in when its body starts; each case gives exactly that, and nothing more.
@Suite("Live server: accounts")
struct LiveServerAccountTests {
    @Test("account .none: no user exists, so TestAccount's sign-in is refused")
    func noneHasNoUser() async throws {
        try await LiveServer.with(account: .none) { live in
            let login = try await live.api.send("POST", "/v1/auth/login",
                                                json: LoginRequest(username: TestAccount.username, password: TestAccount.password))
            #expect(login.status == 401)
        }
    }

    @Test("account .added: TestAccount can sign in, but the API client and notes are not signed in")
    func addedSignsNobodyIn() async throws {
        try await LiveServer.with(account: .added) { live in
            #expect(try await live.api.send("GET", "/v1/me").status == 401)
            #expect(try await live.notes(["whoami"]).exitCode != 0)
            _ = try await live.api.signedIn(TestAccount.username, password: TestAccount.password)
        }
    }

    @Test("account .signedIn: the API client carries TestAccount's token")
    func signedInCarriesTheToken() async throws {
        try await LiveServer.with(account: .signedIn) { live in
            let me = try await live.api.send("GET", "/v1/me")
            #expect(me.status == 200)
            #expect(try me.decode(UserResource.self).username == TestAccount.username)
        }
    }

    @Test("account .loggedIn: the real notes in the private HOME is signed in as TestAccount")
    func loggedInSignsNotesIn() async throws {
        try await LiveServer.with(account: .loggedIn) { live in
            let whoami = try await live.notes(["whoami"])
            #expect(whoami.stdout == "\(TestAccount.username) on \(live.serverURL)\n", "\(whoami.stderr)")
            #expect(try await live.api.send("GET", "/v1/me").status == 401, "only notes is signed in")
        }
    }
}
