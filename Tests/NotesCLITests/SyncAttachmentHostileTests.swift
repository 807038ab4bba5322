import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// docs/architecture.md, Sync invariants 8 for attachments: a hostile server (a `ScriptedHTTPServer` speaking to the real
/// `notes` binary) can make no attachment land outside the folder, in `.notes/`, through a
/// linked folder, or with bytes other than its hash says.
@Suite("Sync attachments: hostile server")
struct SyncAttachmentHostileTests {
    static func attachment(_ path: String, _ bytes: Data, hash: String? = nil, kind: EntryKind = .attachment) -> NoteResource {
        NoteResource(id: NoteID(), path: path, content: nil, hash: hash ?? SHA256.hex(of: bytes), rev: 1, size: bytes.count,
                     createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", deleted: false,
                     kind: kind, mediaType: "application/octet-stream")
    }

    /// A server whose feed is `entries` (once) and whose content endpoint serves `contents` by hash.
    static func fixture(_ entries: [NoteResource], contents: [String: Data]) throws -> HostileServerFixture {
        let feed = try WireJSON.encoder().encode(ChangesPage(changes: entries, cursor: "9", hasMore: false))
        let empty = try WireJSON.encoder().encode(ChangesPage(changes: [], cursor: "9", hasMore: false))
        return try HostileServerFixture { request in
            switch request.path {
            case "/v1/changes":
                .respond(status: 200, headers: ["Content-Type": "application/json"],
                         body: HostileServerFixture.since(request) == "9" ? empty : feed)
            case "/v1/limits": HostileServerFixture.json(ResponseBudget.defaultLimits)
            case "/v1/batch": .json(200, #"{"results":[]}"#)
            case let path where path.hasPrefix("/v1/content/"):
                contents[String(path.dropFirst("/v1/content/".count))].map {
                    .respond(status: 200, headers: ["Content-Type": "application/octet-stream"], body: $0)
                } ?? .error(404, "not_found", "No such content.")
            default: .error(404, "not_found", "No such thing.")
            }
        }
    }

    @Test("attachment paths through a linked folder, out of the folder, into .notes/, or of the wrong kind are refused; nothing lands outside")
    func hostilePathsNeverLandOutside() async throws {
        let bytes = Data("\u{89}PNG payload".utf8)
        let hash = SHA256.hex(of: bytes)
        let hostile = ["link/evil.png", "../escape.png", "/tmp/notes-absolute.png", ".notes/tmp/x.png", "a/../../up.png", "fake.md"]
        let entries = hostile.map { Self.attachment($0, bytes) } + [Self.attachment("fine.png", bytes)]
        let fixture = try Self.fixture(entries, contents: [hash: bytes])
        defer { fixture.stop() }
        let outside = fixture.work.appending("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let initResult = try await fixture.notes(["init", fixture.folder.path, "--server", fixture.server.baseURL])
        #expect(initResult.exitCode == 0, "\(initResult.stderr)")
        try FileManager.default.createSymbolicLink(atPath: fixture.folder.path + "/link", withDestinationPath: outside.path)

        let result = try await fixture.notes(["sync", fixture.folder.path, "--json"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        let report = try WireJSON.decoder().decode(SyncReport.self, from: Data(result.stdout.utf8))
        #expect(report.downloaded == 1)
        #expect(fixture.notesWritten() == ["fine.png"], "\(fixture.notesWritten())")
        #expect(FileManager.default.contents(atPath: fixture.folder.path + "/fine.png") == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
        for escaped in ["escape.png", "up.png"] { #expect(!FileManager.default.fileExists(atPath: fixture.work.appending(escaped).path)) }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/notes-absolute.png"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.folder.path + "/.notes/tmp").isEmpty)
        #expect(report.warnings.filter { $0.contains("unsafe path") }.count == hostile.count - 1, "\(report.warnings)")
        #expect(report.warnings.contains { $0.contains("link/evil.png") }, "the linked folder is named: \(report.warnings)")
    }

    @Test("bytes that do not hash to what the server claims are never placed: exit 1, nothing written, no temporary file left")
    func mismatchedBytesAreNeverPlaced() async throws {
        let claimed = Data("the real picture".utf8)
        let sent = Data("the fake picture".utf8)  // the same length: only the hash tells
        let entry = Self.attachment("photo.png", claimed)
        let fixture = try Self.fixture([entry], contents: [entry.hash: sent])
        defer { fixture.stop() }
        _ = try await fixture.notes(["init", fixture.folder.path, "--server", fixture.server.baseURL])

        let result = try await fixture.notes(["sync", fixture.folder.path])
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("photo.png"), "\(result.stderr)")
        #expect(fixture.notesWritten().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.folder.path + "/.notes/tmp").isEmpty)
    }
}
