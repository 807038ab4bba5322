import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// A viewer's folder of a shared space, through the real `notes` and `notes-server` (README,
/// "Sharing"): every sync names once each file kept local because the space is read-only for
/// the viewer, and a local edit that meets another member's change becomes a conflict copy there.
@Suite("Spaces: a viewer's folder")
struct SpaceViewerFolderTests {
    static let password = "a viewer's long enough password"

    @Test("a viewer's sync names each file kept local once and exits 1; an edit meeting a remote change becomes a local conflict copy")
    func viewerKeepsLocalChanges() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.server.addUser("carol", password: Self.password)
            try await harness.login()
            _ = try await AccountsTests.login(harness, "carol", Self.password)
            let owner = ["--username", TestAccount.username]
            #expect(try await harness.notes(["space", "create", "Team"] + owner).exitCode == 0)
            #expect(try await harness.notes(["space", "add", "Team", "carol", "--role", "viewer"] + owner).exitCode == 0)
            let ada = harness.home.appending("team-ada").path, carol = harness.home.appending("team-carol").path
            #expect(try await harness.notes(["clone", harness.serverURL, ada, "--space", "Team"] + owner).exitCode == 0)
            try "line one\nline two\n".write(toFile: ada + "/soup.md", atomically: true, encoding: .utf8)
            try "bread\n".write(toFile: ada + "/bread.md", atomically: true, encoding: .utf8)
            #expect(try await harness.notes(["sync", ada]).exitCode == 0)
            #expect(try await harness.notes(["clone", harness.serverURL, carol, "--space", "Team", "--username", "carol"]).exitCode == 0)

            try "line one\nline two, by carol\n".write(toFile: carol + "/soup.md", atomically: true, encoding: .utf8)
            try "carol's idea\n".write(toFile: carol + "/idea.md", atomically: true, encoding: .utf8)
            let kept = try await harness.notes(["sync", carol])
            #expect(kept.exitCode == 1, "\(kept.stderr)")
            for name in ["soup.md", "idea.md"] {
                let lines = kept.stderr.split(separator: "\n").filter { $0.contains("kept local") && $0.hasSuffix(name) }
                #expect(lines.count == 1, "\(name) is named once as kept local: \(kept.stderr)")
            }
            #expect(!kept.stderr.contains("bread.md"), "an unchanged file is not named: \(kept.stderr)")

            try "line one\nline two, by ada\n".write(toFile: ada + "/soup.md", atomically: true, encoding: .utf8)
            #expect(try await harness.notes(["sync", ada]).exitCode == 0)
            let met = try await harness.notes(["sync", carol])
            #expect(met.exitCode == 1, "\(met.stderr)")
            #expect(try String(contentsOfFile: carol + "/soup.md", encoding: .utf8) == "line one\nline two, by ada\n", "the other member's change is pulled")
            let copies = try FileManager.default.contentsOfDirectory(atPath: carol).filter { $0.hasPrefix("soup.conflict-") }
            #expect(copies.count == 1, "\(copies)")
            if let copy = copies.first {
                #expect(try String(contentsOfFile: carol + "/" + copy, encoding: .utf8) == "line one\nline two, by carol\n", "the viewer's edit is its conflict copy")
            }
            #expect(try await harness.notes(["sync", ada]).exitCode == 0)
            let server = try FileManager.default.contentsOfDirectory(atPath: ada).filter { !$0.hasPrefix(".") }.sorted()
            #expect(server == ["bread.md", "soup.md"], "nothing of the viewer's reached the space: \(server)")
        }
    }
}
