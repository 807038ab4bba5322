import Foundation
import NotesCommandLine
import NotesTestSupport
import Testing
@testable import notes_cli

@Suite("Server URLs a user types")
struct ServerURLTests {
    @Test("a bare host with a port is a usage error that names both spellings, not a TLS failure")
    func bareHostWithPortAsksForTheScheme() throws {
        let error = #expect(throws: UsageError.self) { try ServerURL("127.0.0.1:8080") }
        #expect(error?.message.contains("http://127.0.0.1:8080") == true)
        #expect(error?.message.contains("https://127.0.0.1:8080") == true)
    }

    @Test("notes login --server HOST:PORT exits 2 and says to add the scheme, before asking anything")
    func loginWithoutSchemeExitsWithUsage() async throws {
        let home = try TemporaryDirectory("notes-home")
        defer { home.remove() }
        let result = try await ProcessRunner.run(
            BuiltProducts.client, ["login", "--server", "127.0.0.1:8080", "--username", "ada", "--password-stdin"],
            environment: ["HOME": home.path, "XDG_CONFIG_HOME": home.appending("config").path], stdin: "secret\n")
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains("has no scheme"))
        #expect(!result.stderr.lowercased().contains("ssl"))
    }
}
