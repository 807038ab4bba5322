import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// `LiveServer.sync` reads what `notes sync --json` printed; a test that counts uploads or
/// deletions relies on it never making up a report.
@Suite("Live server: sync reports")
struct LiveServerSyncReportTests {
    @Test("a sync that prints no report fails the test instead of reading as a report of zero changes")
    func syncWithoutAReportIsAnError() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            // A folder never bound with `notes init`: the sync stops (exit 2) before any report.
            try FileManager.default.createDirectory(atPath: h.folder("unbound"), withIntermediateDirectories: true)
            let error = await #expect(throws: UnreadableReport.self) { try await h.sync("unbound", expect: 2) }
            #expect(error?.stdout == "")
            #expect(error?.stderr.contains("not a notes folder") == true, "\(error?.stderr ?? "")")
        }
    }
}
