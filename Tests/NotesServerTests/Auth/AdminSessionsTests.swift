import Foundation
import NotesCore
import NotesTestSupport
import Testing

@Suite("Auth: notes-server sessions list|revoke")
struct AdminSessionsTests {
    /// The rows of `sessions list` output into a pipe (no header there), split into columns.
    private func rows(_ output: String) -> [[String]] {
        output.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
    }

    @Test("sessions list shows each device; sessions revoke ID ends just that session at once")
    func listAndRevokeOne() async throws {
        try await LiveServer.with(account: .added) { server, client in
            let laptop = try await client.signIn(device: "laptop")
            let phone = try await client.signIn(device: "phone")
            let list = try await server.admin(["sessions", "list"])
            #expect(list.exitCode == 0)
            let devices = rows(list.stdout).map { $0[2] }
            #expect(devices.sorted() == ["laptop", "phone"])
            let laptopID = try #require(rows(list.stdout).first { $0[2] == "laptop" }?[0])

            let revoke = try await server.admin(["sessions", "revoke", laptopID])
            #expect(revoke.exitCode == 0, "\(revoke.stderr)")
            #expect(try await client.me(laptop.accessToken).status == 401)
            #expect(try await client.refresh(try #require(laptop.refreshToken)).errorCode == "invalid_grant")
            #expect(try await client.me(phone.accessToken).status == 200)

            #expect(rows(try await server.admin(["sessions", "list"]).stdout).map { $0[2] } == ["phone"])
            let all = rows(try await server.admin(["sessions", "list", "--all"]).stdout)
            #expect(all.first { $0[0] == laptopID }?[5] == "revoked")
        }
    }

    @Test("sessions revoke --user ends every session of that user but no one else's")
    func revokeAllOfUser() async throws {
        try await LiveServer.with(account: .added) { server, client in
            try await server.addUser("bob", password: "bob's own password")
            let first = try await client.signIn(device: "a")
            let second = try await client.signIn(device: "b")
            let bob = try await client.signIn("bob", "bob's own password")
            let revoke = try await server.admin(["sessions", "revoke", "--user", TestAccount.username])
            #expect(revoke.exitCode == 0)
            #expect(revoke.stdout.contains("Ended 2 sessions"))
            #expect(try await client.me(first.accessToken).status == 401)
            #expect(try await client.me(second.accessToken).status == 401)
            #expect(try await client.me(bob.accessToken).status == 200)
        }
    }

    @Test("revoking a session that does not exist fails with a message and exit code 1")
    func revokeUnknownSession() async throws {
        try await LiveServer.with(account: .none) { server, _ in
            let result = try await server.admin(["sessions", "revoke", "999"])
            #expect(result.exitCode == 1)
            #expect(result.stderr.contains("no active session 999"))
            #expect(try await server.admin(["sessions", "revoke", "abc"]).exitCode == 2)
        }
    }
}
