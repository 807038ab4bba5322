import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing
@testable import notes_cli

/// A broken or hostile server cannot exhaust or hang the client. Each answer below
/// is one a real server never gives, so a `ScriptedHTTPServer` gives it, to the real `notes`
/// binary: each ends by itself with a clear error, exit 1 or 5, and nothing in the folder.
@Suite("Client: hostile answers are bounded and checked")
struct ClientHostileAnswerTests {
    /// A server answering `/v1/changes` with `feed` and everything else as a quiet server would.
    static func server(feed: @escaping @Sendable (ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Reply,
                       limits: ServerLimits = ResponseBudget.defaultLimits) throws -> HostileServerFixture {
        try HostileServerFixture { request in
            switch request.path {
            case "/v1/changes": feed(request)
            case "/v1/limits": HostileServerFixture.json(limits)
            case "/v1/batch": .json(200, #"{"results":[]}"#)
            default: .error(404, "not_found", "No such thing.")
            }
        }
    }

    enum Endless: String, CaseIterable, Sendable {
        case chunked = "an endless chunked body"
        case announced = "a body announced as 300 MB"
    }

    @Test("an answer past the bound is stopped while it arrives: clone exits 1 naming the bound, nothing written",
          arguments: Endless.allCases)
    func oversizedAnswerIsStopped(kind: Endless) async throws {
        let fixture = try Self.server { _ in
            kind == .chunked ? .endlessChunkedBody() : .trickle(announcedLength: 300_000_000, every: .milliseconds(1))
        }
        defer { fixture.stop() }
        let result = try await fixture.notes(["clone", fixture.server.baseURL, fixture.folder.path])
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("the server's answer to GET /v1/changes is larger than 68 MiB"), "\(result.stderr)")
        #expect(fixture.notesWritten().isEmpty)
        // Too large is final: not asked again.
        #expect(fixture.server.requests.filter { $0.path == "/v1/changes" }.count == 1)
    }

    @Test("a server trickling its answer is given up on at the request deadline, not retried: exit 5")
    func tricklingServerHitsTheDeadline() async throws {
        let fixture = try Self.server { _ in .trickle(announcedLength: 100_000, every: .milliseconds(200)) }
        defer { fixture.stop() }
        // The idle timeout beyond the deadline: however loaded the machine, only the deadline fires.
        let result = try await fixture.notes(["clone", fixture.server.baseURL, fixture.folder.path],
                                             environment: HostileServerFixture.shortTimeouts(idle: 10, deadline: 3))
        #expect(result.exitCode == 5)
        #expect(result.stderr.contains("did not finish answering GET /v1/changes within 3 s"), "\(result.stderr)")
        #expect(fixture.notesWritten().isEmpty)
        #expect(fixture.server.requests.filter { $0.path == "/v1/changes" }.count == 1)
    }

    enum Stall: String, CaseIterable, Sendable {
        case afterHeaders = "after its headers"
        case midBody = "mid-body"
    }

    @Test("a server that stalls hits the idle timeout; the retries are bounded: exit 5", arguments: Stall.allCases)
    func stalledServerHitsTheIdleTimeout(stall: Stall) async throws {
        let fixture = try Self.server { _ in
            switch stall {
            case .afterHeaders: .trickle(announcedLength: 100, every: nil, maxDuration: .seconds(30))
            case .midBody: .stallMidBody(announcedLength: 10_000, sentBytes: 2_000, maxDuration: .seconds(30))
            }
        }
        defer { fixture.stop() }
        let result = try await fixture.notes(["clone", fixture.server.baseURL, fixture.folder.path],
                                             environment: HostileServerFixture.shortTimeouts(idle: 1, deadline: 30))
        #expect(result.exitCode == 5)
        #expect(result.stderr.contains("the server sent nothing for 1 s while answering GET /v1/changes"), "\(result.stderr)")
        #expect(fixture.notesWritten().isEmpty)
        #expect(fixture.server.requests.filter { $0.path == "/v1/changes" }.count == RetryPolicy.standard.maxAttempts)
    }

    enum Feed: String, CaseIterable, Sendable {
        case emptyPages = "empty pages"
        case samePage = "the same note again"
        case sameCursor = "the same cursor"
    }

    @Test("a changes feed promising more without progress is stopped, for sync and for export --remote",
          arguments: Feed.allCases)
    func feedWithoutProgressIsStopped(kind: Feed) async throws {
        let note = HostileServerFixture.note("loop.md", "again\n", rev: 7)
        let fixture = try Self.server { request in
            let since = Int(HostileServerFixture.since(request)) ?? 0
            return switch kind {
            case .emptyPages: HostileServerFixture.json(ChangesPage(changes: [], cursor: String(since + 1), hasMore: true))
            case .samePage: HostileServerFixture.json(ChangesPage(changes: [note], cursor: String(since + 1), hasMore: true))
            case .sameCursor: HostileServerFixture.json(ChangesPage(changes: [note], cursor: "5", hasMore: true))
            }
        }
        defer { fixture.stop() }

        let clone = try await fixture.notes(["clone", fixture.server.baseURL, fixture.folder.path])
        #expect(clone.exitCode == 1)
        #expect(clone.stderr.contains("the server's changes feed promises more but"), "\(clone.stderr)")
        // The one genuine note of the first page may be written; the loop never gets further.
        #expect(fixture.notesWritten() == (kind == .emptyPages ? [] : ["loop.md"]))
        let walked = fixture.server.requests.filter { $0.path == "/v1/changes" }.count
        #expect(walked <= 4)

        let site = fixture.work.appending("site")
        let export = try await fixture.notes(["export", "--html", site.path, "--remote"])
        #expect(export.exitCode == 1)
        #expect(export.stderr.contains("the server's changes feed promises more but"), "\(export.stderr)")
        #expect(!FileManager.default.fileExists(atPath: site.path))
    }

    @Test("a note list promising more pages of notes it already listed is stopped: `notes ls` exits 1")
    func noteListWithoutProgressIsStopped() async throws {
        let note = HostileServerFixture.note("same.md", nil)
        let fixture = try HostileServerFixture { request in
            guard request.path == "/v1/notes" else { return .error(404, "not_found", "No such thing.") }
            let after = URLComponents(string: "/?" + request.query)?.queryItems?.first { $0.name == "after" }?.value
            return HostileServerFixture.json(NoteListPage(notes: [note], nextCursor: String((Int(after ?? "") ?? 0) + 1)))
        }
        defer { fixture.stop() }
        let result = try await fixture.notes(["ls"])
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("the server's note list promises more but makes no progress"), "\(result.stderr)")
        #expect(fixture.server.requests.count == 2)
    }

    @Test("a note over the server's published note limit is refused before it reaches the folder: exit 1")
    func noteOverThePublishedLimitIsRefused() async throws {
        var limits = ResponseBudget.defaultLimits
        limits.maxNoteBytes = 10 * 1024 * 1024
        let big = String(repeating: "a", count: limits.maxNoteBytes + 1)
        let page = HostileServerFixture.json(ChangesPage(changes: [HostileServerFixture.note("big.md", big)], cursor: "1", hasMore: false))
        let fixture = try Self.server(feed: { _ in page }, limits: limits)
        defer { fixture.stop() }

        let result = try await fixture.notes(["clone", fixture.server.baseURL, fixture.folder.path])
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("the server sent big.md with 10485761 bytes, over its published note limit of 10485760 bytes"),
                "\(result.stderr)")
        #expect(fixture.notesWritten().isEmpty)
        #expect(fixture.server.requests.contains { $0.path == "/v1/limits" })
    }

    @Test("content that does not match its hash is refused by sync, export --remote and cat: exit 1, nothing written")
    func contentNotMatchingItsHashIsRefused() async throws {
        let forged = HostileServerFixture.note("forged.md", "# evil\n", hash: SHA256.hex(of: "# good\n"))
        let good = HostileServerFixture.note("good.md", "# good\n", rev: 2)
        let fixture = try HostileServerFixture { request in
            switch request.path {
            case "/v1/changes": HostileServerFixture.json(ChangesPage(changes: [good, forged], cursor: "2", hasMore: false))
            case "/v1/notes": HostileServerFixture.json(NoteListPage(notes: [forged], nextCursor: nil))
            case "/v1/notes/\(forged.id.value)": HostileServerFixture.json(forged)
            default: .error(404, "not_found", "No such thing.")
            }
        }
        defer { fixture.stop() }

        let clone = try await fixture.notes(["clone", fixture.server.baseURL, fixture.folder.path])
        #expect(clone.exitCode == 1)
        #expect(clone.stderr.contains("the server sent forged.md with content that does not match its hash"), "\(clone.stderr)")
        // The page is refused whole, so not even its good note was written.
        #expect(fixture.notesWritten().isEmpty)

        let site = fixture.work.appending("site")
        let export = try await fixture.notes(["export", "--html", site.path, "--remote"])
        #expect(export.exitCode == 1)
        #expect(export.stderr.contains("forged.md with content that does not match its hash"))
        #expect(!FileManager.default.fileExists(atPath: site.path))

        let cat = try await fixture.notes(["cat", "forged.md"])
        #expect(cat.exitCode == 1)
        #expect(cat.stderr.contains("forged.md with content that does not match its hash"))
        #expect(cat.stdout.isEmpty)
    }

    @Test("the answer bound follows the published limits, and no published limit lifts it past the ceiling")
    func answerBoundFollowsLimitsUpToTheCeiling() {
        #expect(ResponseBudget.defaultMaxBytes == 68 * 1024 * 1024)
        var larger = ResponseBudget.defaultLimits
        larger.maxNoteBytes = 20 * 1024 * 1024
        #expect(ResponseBudget.maxBytes(for: larger) == 128 * 1024 * 1024)
        var hostile = ResponseBudget.defaultLimits
        hostile.maxNoteBytes = Int.max
        hostile.maxRequestBytes = Int.max
        #expect(ResponseBudget.maxBytes(for: hostile) == ResponseBudget.ceiling)
    }
}
