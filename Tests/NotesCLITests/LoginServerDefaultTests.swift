import Foundation
import NotesTestSupport
import Testing

/// Which server `notes login` signs in to when none is named.
@Suite("notes login: the server it picks")
struct LoginServerDefaultTests {
    @Test("after an admin revokes the session, notes login inside a bound folder signs in to the folder's server without --server")
    func loginInsideABoundFolderKnowsItsServer() async throws {
        try await SyncHarness.with { sync in
            let folder = try await sync.initFolder("desk")
            let revoked = try await sync.client.server.admin(["sessions", "revoke", "--user", ClientHarness.username])
            #expect(revoked.exitCode == 0, "\(revoked.stderr)")
            #expect(try await sync.notes(["sync", folder]).exitCode == 4)
            #expect(try sync.client.storedSession() == nil)

            let login = try await ProcessRunner.run(BuiltProducts.client, ["login", "--username", ClientHarness.username, "--password-stdin"],
                                                    environment: sync.client.environment, stdin: ClientHarness.password + "\n",
                                                    currentDirectory: URL(fileURLWithPath: folder))
            #expect(login.exitCode == 0, "\(login.stderr)")
            #expect(login.stderr.contains("Signed in to \(sync.serverURL)"), "\(login.stderr)")
            #expect(try await sync.notes(["sync", folder]).exitCode == 0)
        }
    }

    @Test("outside any folder with no session left, notes login asks for --server, exit 2")
    func loginElsewhereAsksForTheServer() async throws {
        try await withTemporaryDirectory { home in
            let login = try await ProcessRunner.run(BuiltProducts.client, ["login", "--username", "ada", "--password-stdin"],
                                                    environment: ["HOME": home.path, "XDG_CONFIG_HOME": home.path],
                                                    stdin: "whatever\n", currentDirectory: home.url)
            #expect(login.exitCode == 2)
            #expect(login.stderr.contains("which server? pass --server URL"), "\(login.stderr)")
        }
    }
}
