import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// Small attachments go several to a request (`POST /v1/content`), end to end with the real
/// binaries; a server that refuses a batch as a whole still gets each content alone.
@Suite("Sync attachments: small contents several to a request")
struct SyncAttachmentBatchTests {
    @Test("a folder of small images goes up in one batch request, not one per file, and arrives byte-exact in another folder")
    func smallImagesShareARequest() async throws {
        try await SyncHarness.with { h in
            try await h.initFolder("a")
            var images: [String: Data] = [:]
            for index in 0..<30 {
                let path = "album/photo\(index).jpg"
                images[path] = SyncAttachmentTests.bytes(5_000 + index * 97, seed: 300 + UInt64(index))
                try h.write("a", path, images[path]!)
            }
            let up = try await h.sync("a")
            #expect(up.uploaded == 30, "\(up)")
            #expect(try await h.client.waitUntil { h.client.logCount("POST /v1/content ") == 1 }, "one batch for 30 small files")
            #expect(h.client.logCount("PUT /v1/content/") == 0 && h.client.logCount("/v1/uploads") == 0)

            try await h.initFolder("b")
            let down = try await h.sync("b")
            #expect(down.downloaded == 30, "\(down)")
            for (path, bytes) in images {
                #expect(FileManager.default.contents(atPath: h.folder("b") + "/" + path) == bytes, "\(path)")
            }
        }
    }

    @Test("a batch over the quota falls back to one request per content: those that fit are stored, the other is skipped and named")
    func overQuotaBatchFallsBackToEachAlone() async throws {
        try await SyncHarness.with(serverArguments: ["--quota", "40K"]) { h in
            try await h.initFolder("a")
            let files = (0..<3).map { SyncAttachmentTests.bytes(15_000, seed: 310 + UInt64($0)) }
            for (index, bytes) in files.enumerated() { try h.write("a", "scan\(index).bin", bytes) }
            try h.write("a", "note.md", "still syncs\n")

            let report = try await h.sync("a", expect: 1)
            #expect(report.skipped.count == 1 && report.skipped.first?.reason == .quotaExceeded, "\(report.skipped)")
            let skipped = try #require(report.skipped.first?.path)
            #expect(Set(try await h.serverAttachments().keys) == Set((0..<3).map { "scan\($0).bin" }).subtracting([skipped]))
            #expect(try await h.serverNotes() == ["note.md": "still syncs\n"])
            #expect(try await h.client.waitUntil { h.client.logCount("PUT /v1/content/") == 3 }, "each content sent alone after the 507")
        }
    }
}
