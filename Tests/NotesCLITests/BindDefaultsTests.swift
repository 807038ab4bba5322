import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// What `notes clone` and `notes init` do when the user leaves out what the client can know
/// (the folder named after the server's host, the one signed-in server): the real binaries
/// against real servers.
@Suite("Bind defaults")
struct BindDefaultsTests {
    @Test(arguments: [
        ("https://notes.example.com", "notes.example.com"),
        ("https://notes.example.com:443/", "notes.example.com"),
        ("http://127.0.0.1:8080", "127.0.0.1-8080"),
        ("https://Notes.Example.com:8443/base", "notes.example.com-8443"),
        ("http://[::1]:8080", "1-8080"),
    ])
    func cloneFolderIsNamedAfterTheServersHost(url: String, folder: String) throws {
        let named = CloneCommand.defaultDirectory(for: try ServerURL(url))
        #expect(named == folder, "\(url) -> \(named)")
    }

    /// Foundation on Linux keeps an IPv6 host's brackets; the canonical URL must not double them.
    @Test func anIPv6ServerURLKeepsOnePairOfBrackets() throws {
        #expect(try ServerURL("http://[::1]:8080").string == "http://[::1]:8080")
        #expect(try ServerURL("https://[2001:DB8::1]/").string == "https://[2001:db8::1]")
    }

    @Test func cloneWithoutAFolderClonesIntoOneNamedAfterTheHostAndRefusesItWhenNotEmpty() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            _ = try await harness.apiClient().putNote(NoteID(), PutNoteRequest(path: "hello.md", content: "hi\n"), ifMatch: nil)
            let work = try TemporaryDirectory("notes-clone-default")
            defer { work.remove() }
            let clone = { () async throws -> ProcessResult in
                try await ProcessRunner.run(BuiltProducts.client, ["clone", harness.serverURL], environment: harness.environment,
                                            currentDirectory: work.url)
            }
            let first = try await clone()
            #expect(first.exitCode == 0, "\(first.stderr)")
            let folder = work.appending("127.0.0.1-\(harness.server.port)")
            #expect(try String(contentsOf: folder.appendingPathComponent("hello.md"), encoding: .utf8) == "hi\n")
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(".notes/config.json").path))

            let again = try await clone()
            #expect(again.exitCode == 2)
            #expect(again.stderr.contains("127.0.0.1-\(harness.server.port) is not empty"), "\(again.stderr)")
            #expect(again.stderr.contains("notes clone \(harness.serverURL) DIR"), "\(again.stderr)")
        }
    }

    @Test func initWithoutServerUsesTheOneSignedInServerAndNamesThemWhenThereAreSeveral() async throws {
        try await LiveServer.with(account: .added) { harness in
            let work = try TemporaryDirectory("notes-init-default")
            defer { work.remove() }
            let initFolder = { (name: String, extra: [String: String]) async throws -> ProcessResult in
                try await harness.notes(["init", work.appending(name).path], environment: extra)
            }
            try await harness.login()
            let one = try await initFolder("one", [:])
            #expect(one.exitCode == 0, "\(one.stderr)")
            let config = try SyncFolder.find(from: work.appending("one").path).config
            #expect(config.server == harness.serverURL)

            // A second server signed in: init must be told which.
            let other = try await TestServer()
            do {
                try await initWithTwoServers(harness, other: other, initFolder: initFolder, work: work)
            } catch {
                _ = await other.stop()
                throw error
            }
            _ = await other.stop()
        }
    }

    private func initWithTwoServers(_ harness: LiveServer, other: TestServer,
                                    initFolder: (String, [String: String]) async throws -> ProcessResult,
                                    work: TemporaryDirectory) async throws {
        try await other.addUser(TestAccount.username, password: TestAccount.password)
        let otherURL = other.baseURL.absoluteString
        let login = try await harness.notes(["login", "--server", otherURL, "--username", TestAccount.username, "--password-stdin"],
                                            stdin: TestAccount.password + "\n")
        #expect(login.exitCode == 0, "\(login.stderr)")
        let two = try await initFolder("two", [:])
        #expect(two.exitCode == 2)
        #expect(two.stderr.contains(harness.serverURL) && two.stderr.contains(otherURL), "\(two.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.appending("two/.notes").path))

        // NOTES_SERVER still chooses.
        let chosen = try await initFolder("three", ["NOTES_SERVER": otherURL])
        #expect(chosen.exitCode == 0, "\(chosen.stderr)")
        #expect(try SyncFolder.find(from: work.appending("three").path).config.server == otherURL)
    }
}
