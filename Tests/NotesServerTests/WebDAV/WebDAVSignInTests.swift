import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Signing in to WebDAV: a personal access token as the app password (or a bearer token), its
/// scope respected; never the account password; every failure counted by the sign-in throttle.
@Suite("WebDAV: sign-in with app passwords")
struct WebDAVSignInTests {
    @Test("without credentials the answer is 401 with a Basic challenge")
    func challenge() async throws {
        try await TestApp.with { app in
            let response = await app.dav("PROPFIND", "/dav/personal/", authorization: nil, headers: ["Depth": "0"])
            #expect(response.status == 401)
            #expect(response.header("WWW-Authenticate")?.hasPrefix("Basic realm=\"notes\"") == true)
        }
    }

    @Test("no body is read from a caller who has not signed in, whatever the method")
    func noBodyWithoutSignIn() async throws {
        try await TestApp.with { app in
            for method in ["PROPFIND", "PROPPATCH", "LOCK", "PUT"] {
                let head = HTTPRequest(method: method, path: "/dav/personal/x.md", headers: ["Content-Length": "100000"])
                guard case .refuse(let error) = app.application.responder.admitBody(of: head) else {
                    Issue.record("\(method) without credentials may send a body")
                    continue
                }
                #expect(error.status == 401)
            }
        }
    }

    @Test("the account password over Basic is refused with a message that says to use a personal access token")
    func passwordRefused() async throws {
        try await TestApp.with { app in
            let response = await app.dav("PROPFIND", "/dav/personal/", authorization: TestApp.basic(TestAccount.username, TestAccount.password),
                                         headers: ["Depth": "0"])
            #expect(response.status == 401)
            #expect(response.text.contains("personal access token"))
            #expect(response.text.contains("never the account password"))
            #expect(!app.log.lines.joined().contains(TestAccount.password))
        }
    }

    @Test("wrong credentials count towards the sign-in throttle, which then answers 429")
    func failuresAreThrottled() async throws {
        try await TestApp.with({ $0.loginLimits.perAccountAndAddress = 3 }) { app in
            let wrong = TestApp.basic(TestAccount.username, "npt_" + String(repeating: "A", count: 43))
            for _ in 0..<3 {
                #expect(await app.dav("PROPFIND", "/dav/personal/", authorization: wrong, headers: ["Depth": "0"]).status == 401)
            }
            let throttled = await app.dav("PROPFIND", "/dav/personal/", authorization: wrong, headers: ["Depth": "0"])
            #expect(throttled.status == 429)
            #expect(throttled.header("Retry-After") != nil)
        }
    }

    @Test("a read token reads but every write answers 403, and nothing is written")
    func readTokenCannotWrite() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials(scope: .read)
            #expect(await app.dav("PROPFIND", "/dav/personal/", authorization: auth, headers: ["Depth": "1"]).status == 207)
            #expect(await app.dav("PUT", "/dav/personal/x.md", body: "x", authorization: auth).status == 403)
            #expect(await app.dav("MKCOL", "/dav/personal/x", authorization: auth).status == 403)
            #expect(await app.dav("DELETE", "/dav/personal/x.md", authorization: auth).status == 403)
            #expect(try app.count("SELECT count(*) FROM notes") == 0)
        }
    }

    @Test("a bearer token works as on the API, and the token never appears in the log")
    func bearerWorksAndIsNotLogged() async throws {
        try await TestApp.with { app in
            let session = try await app.signIn().accessToken
            #expect(await app.dav("PUT", "/dav/personal/b.md", body: "b", authorization: "Bearer \(session)").status == 201)
            let (auth, token) = try await app.davCredentials()
            #expect(await app.dav("GET", "/dav/personal/b.md", authorization: auth).status == 200)
            let log = app.log.lines.joined(separator: "\n")
            #expect(!log.contains(session))
            #expect(!log.contains(token.token ?? "unset"))
        }
    }

    @Test("another account's token sees its own space only: the first account's files answer 404")
    func accountsAreIsolated() async throws {
        try await TestApp.with { app in
            let (auth, _) = try await app.davCredentials()
            #expect(await app.dav("PUT", "/dav/personal/private.md", body: "mine", authorization: auth).status == 201)
            try app.addUser("other", password: TestAccount.password)
            let otherSession = try await app.login("other", TestAccount.password).decode(TokenResponse.self).accessToken
            let otherToken = try await app.createToken("dav", scope: .write, using: otherSession)
            let other = TestApp.basic("other", otherToken.token ?? "")
            #expect(await app.dav("GET", "/dav/personal/private.md", authorization: other).status == 404)
            let listing = await app.dav("PROPFIND", "/dav/personal/", authorization: other, headers: ["Depth": "1"])
            #expect(listing.hrefs == ["/dav/personal/"])
            #expect(await app.dav("PROPFIND", "/dav/someone-else/", authorization: other, headers: ["Depth": "0"]).status == 404)
            // A token given with another account's username does not sign in.
            #expect(await app.dav("GET", "/dav/personal/private.md", authorization: TestApp.basic(TestAccount.username, otherToken.token ?? "")).status == 401)
        }
    }
}
