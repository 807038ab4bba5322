import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// `notes-server user unlock NAME` ends a sign-in lockout beside a running server (its counts in
/// memory on SQLite, in the shared table on PostgreSQL), and the web app says how long a
/// lockout lasts in minutes.
@Suite("Auth: unlocking an account locked by failed sign-ins")
struct LoginUnlockTests {
    @Test("after 10 wrong passwords, `user unlock` lets the owner sign in at once on a running server")
    func unlockLetsTheOwnerIn() async throws {
        try await LiveServer.with(account: .added) { server, client in
            for _ in 0..<10 {
                #expect(try await client.login(TestAccount.username, "wrong guess").status == 401)
            }
            let locked = try await client.login(TestAccount.username, TestAccount.password)
            #expect(locked.status == 429, "the 11th attempt waits, even with the right password")

            let unlock = try await server.admin(["user", "unlock", TestAccount.username.uppercased()])
            #expect(unlock.exitCode == 0, "\(unlock.stderr)")
            #expect(unlock.stdout.contains("Unlocked \(TestAccount.username)"), "\(unlock.stdout)")
            #expect(try await client.login(TestAccount.username, TestAccount.password).status == 200)
        }
    }

    @Test("an unlock forgets only the attempts before it: ten wrong passwords after it lock the account again")
    func attemptsAfterTheUnlockCount() async throws {
        try await LiveServer.with(account: .added) { server, client in
            for _ in 0..<10 {
                _ = try await client.login(TestAccount.username, "wrong guess")
            }
            #expect(try await server.admin(["user", "unlock", TestAccount.username]).exitCode == 0)
            for _ in 0..<10 {
                #expect(try await client.login(TestAccount.username, "wrong guess").status == 401)
            }
            #expect(try await client.login(TestAccount.username, TestAccount.password).status == 429)
        }
    }

    @Test("`user unlock` of an account that does not exist fails and says so")
    func unknownAccount() async throws {
        try await LiveServer.with(account: .added) { server, _ in
            let unlock = try await server.admin(["user", "unlock", "nobody"])
            #expect(unlock.exitCode != 0)
            #expect(unlock.stderr.contains("nobody"), "\(unlock.stderr)")
        }
    }

    @Test("the web sign-in page says how long a lockout lasts in minutes")
    func webMessageInMinutes() async throws {
        try await TestApp.with { app in
            let browser = WebBrowser(app)
            for _ in 0..<10 {
                #expect(try await browser.signIn(TestAccount.username, "wrong guess").status == 401)
            }
            let locked = try await browser.signIn()
            #expect(locked.status == 429)
            #expect(locked.body.contains("Try again in 15 minutes."), "\(locked.body)")
            #expect(locked.header("Retry-After") == "900")
        }
    }

    @Test("a wait is spoken in whole minutes from one minute on, rounded up, and in seconds below")
    func spokenWaits() {
        #expect(LoginThrottle.Refusal.spoken(1) == "1 second")
        #expect(LoginThrottle.Refusal.spoken(30) == "30 seconds")
        #expect(LoginThrottle.Refusal.spoken(60) == "1 minute")
        #expect(LoginThrottle.Refusal.spoken(61) == "2 minutes")
        #expect(LoginThrottle.Refusal.spoken(900) == "15 minutes")
    }
}
