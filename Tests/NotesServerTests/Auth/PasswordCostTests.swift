import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The argon2id cost: OWASP's minimum (m=19 MiB, t=2, p=1), within the server's 64 MiB, and
/// hashes made at the former 64 MiB cost still verify and are upgraded at sign-in.
@Suite("Auth: password hashing cost")
struct PasswordCostTests {
    /// A hash at an older cost, as a database may still hold: libsodium's interactive preset (64 MiB, t=2),
    /// for the password "correct horse battery".
    static let legacyHash = "$argon2id$v=19$m=65536,t=2,p=1$gryC2b8MC8kj7zf2BxhY9Q$d9ElDdGibSYO5IuLbeakLgKCZGrPHiklJf7SdCLdwzY"
    static let legacyPassword = "correct horse battery"

    @Test("a new hash carries m=19 MiB, t=2, p=1, verifies the right password only, and is salted")
    func newHashesUseTheChosenCost() throws {
        let hash = try PasswordHash.make("correct horse")
        #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(PasswordHash.verify("correct horse", against: hash))
        #expect(!PasswordHash.verify("correct horsf", against: hash))
        #expect(!PasswordHash.verify("", against: hash))
        #expect(!PasswordHash.verify("x", against: "garbage"))
        #expect(try PasswordHash.make("correct horse") != hash)
        #expect(!PasswordHash.needsRehash(hash))
        #expect(PasswordHash.decoy.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
    }

    @Test("a hash made at the former 64 MiB cost still verifies and asks to be re-hashed")
    func legacyHashesStillVerify() {
        #expect(PasswordHash.verify(Self.legacyPassword, against: Self.legacyHash))
        #expect(!PasswordHash.verify("correct horse battery!", against: Self.legacyHash))
        #expect(PasswordHash.needsRehash(Self.legacyHash))
        #expect(!PasswordHash.needsRehash("garbage"))
    }

    @Test("signing in with a password stored at the former cost works and stores it again at today's cost, sessions kept")
    func signInUpgradesLegacyHash() async throws {
        try await LiveServer.with(account: .added) { server, client in
            let before = try await client.signIn()
            let database = try DirectDatabase(server.databaseLocation)
            defer { database.close() }
            try database.db.run("UPDATE users SET password_hash = ? WHERE username = ?", Self.legacyHash, TestAccount.username)

            #expect(try await client.login(TestAccount.username, Self.legacyPassword).status == 200)
            let stored = try #require(try database.db.scalarString("SELECT password_hash FROM users WHERE username = ?", [TestAccount.username]))
            #expect(stored.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"), "still \(stored)")
            #expect(PasswordHash.verify(Self.legacyPassword, against: stored))
            // Not a password change: the session from before is still signed in.
            #expect(try await client.me(before.accessToken).status == 200)
            #expect(try await client.login(TestAccount.username, Self.legacyPassword).status == 200)
            #expect(try await client.login(TestAccount.username, "wrong password").status == 401)
        }
    }

    @Test("concurrent sign-ins keep the server's peak memory within 64 MiB",
          .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "reads the peak from Linux's /proc"))
    func signInsStayWithinMemoryBudget() async throws {
        try await LiveServer.with(account: .added) { server, client in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        try await client.login(TestAccount.username, index.isMultiple(of: 2) ? TestAccount.password : "wrong password").status
                    }
                }
                for try await status in group { #expect(status == 200 || status == 401) }
            }
            let peak = try #require(Self.peakResidentKiB(of: server.process.processIdentifier))
            #expect(peak < 64 * 1024, "peak resident memory \(peak / 1024) MiB after four sign-ins")
        }
    }

    /// `VmHWM` (the peak resident set) of a process, from /proc, in KiB.
    private static func peakResidentKiB(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }
}
