import Foundation
import NotesTestSupport
import Testing

/// `notes render` typed at a terminal, on a real pseudo-terminal.
@Suite("notes render on a terminal", .enabled(if: TerminalSession.pythonAvailable))
struct RenderOnTerminalTests {
    @Test("notes render with no file on a terminal prints usage and exits 2 instead of waiting for stdin")
    func renderWithoutFileOnTerminalIsUsage() async throws {
        let session = try await TerminalSession.run([], BuiltProducts.client, ["render"])
        #expect(session.status == 2, "\(session.output)")
        #expect(session.output.contains("name a Markdown file to render"))
    }
}
