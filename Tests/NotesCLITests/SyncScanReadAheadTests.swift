import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The scan reads new files ahead on two threads (`NewFileReadAhead`); what it finds must be what
/// its own one-by-one reads find, file for file, whatever else the folder holds.
@Suite("Sync: the scan's read-ahead of new files")
struct SyncScanReadAheadTests {
    @Test("""
        reading new files ahead on two threads finds what reading them one by one finds: the same new notes and \
        attachments, hashes, chunk digests, kept texts, warnings and files left out, across many windows
        """)
    func readAheadFindsWhatTheScansOwnReadsFind() async throws {
        let directory = try TemporaryDirectory("notes-readahead")
        defer { directory.remove() }
        let root = directory.appending("folder").path
        let folder = try SyncFolder.bind(root: root, server: "http://127.0.0.1:9", account: AccountName(userId: 1, username: "u"),
                                         device: "test")
        func put(_ path: String, _ bytes: [UInt8]) throws {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
            // An hour old, as a folder edited earlier: the scan keeps what it reads of such files.
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: url.path)
        }
        // More than one window by count (512 files) and by bytes (2 MiB): 1,300 notes, some of 9 KB.
        for index in 0..<1300 {
            let size = index % 5 == 0 ? 9000 : 40
            try put("f\(index % 23)/n\(index).md", Array("note \(index)\n".utf8) + [UInt8](repeating: UInt8(ascii: "a") + UInt8(index % 26), count: size))
        }
        try put("tracked.md", Array("tracked, edited\n".utf8))
        try put("bad.md", [0xFF, 0xFE, 0x41])
        try put("ignored.md", Array("ignored\n".utf8))
        try put(".notesignore", Array("ignored.md\n".utf8))
        try put("big.md", [UInt8](repeating: UInt8(ascii: "b"), count: 20_000))
        try put("over\u{202E}ride.md", Array("a name a new note may not have\n".utf8))
        try put("pic.png", [1, 2, 3])
        // Attachments among the notes: small ones, two sent in chunks (of 64 KiB here), one over the limit.
        for index in 0..<40 { try put("img/p\(index).jpg", [UInt8](repeating: UInt8(index), count: 3_000 + index)) }
        try put("img/video.mp4", (0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 251) })
        try put("img/scan.pdf", (0..<70_000).map { UInt8(truncatingIfNeeded: $0 / 3) })
        try put("img/huge.iso", [UInt8](repeating: 9, count: 300_000))
        var small = ResponseBudget.defaultLimits
        small.maxNoteBytes = 10_000
        small.uploadChunkBytes = 64 << 10
        small.maxAttachmentBytes = 250_000
        let limits = small
        let row = IndexRow(base: SyncBase(id: NoteID(), path: "tracked.md", rev: 1, hash: SHA256.hex(of: Array("tracked\n".utf8))),
                           diskPath: "tracked.md", stat: .unknown)

        func scan(readsAhead: Bool, takesChunkDigests: Bool = true) async throws -> LocalSnapshot {
            var scan = LocalScan(folder: folder, files: SafeFiles(root: root, scratch: folder.scratchDirectory),
                                 ignore: folder.ignoreRules(), limits: { limits })
            scan.readsAhead = readsAhead
            scan.takesChunkDigests = takesChunkDigests
            return try await scan.scan(rows: [row])
        }
        var ahead = try await scan(readsAhead: true)
        var own = try await scan(readsAhead: false)
        let dryRun = try await scan(readsAhead: true, takesChunkDigests: false)

        #expect(ahead.untracked.count == 1343, "1,300 notes, the picture and 42 attachments")
        func files(_ list: [UntrackedFile]) -> [String] { list.map { "\($0.path) \($0.diskPath) \($0.hash) \($0.stat)" } }
        #expect(files(ahead.untracked) == files(own.untracked))
        #expect(ahead.warnings == own.warnings)
        #expect(ahead.skipped.map { "\($0.path) \($0.reason) \($0.detail)" } == own.skipped.map { "\($0.path) \($0.reason) \($0.detail)" })
        #expect(Set(ahead.skipped.map(\.path)) == ["bad.md", "big.md", "ignored.md", "img/huge.iso", "over\u{202E}ride.md"], "\(ahead.skipped)")
        #expect(ahead.filesRead == own.filesRead)
        // Read ahead indeed: every new file within its limit (the 1,300 notes, the one not UTF-8,
        // the picture and the 42 attachments).
        #expect(ahead.filesReadAhead == 1344 && own.filesReadAhead == 0, "\(ahead.filesReadAhead) \(own.filesReadAhead)")
        #expect(Set(ahead.chunkDigests.keys) == ["img/video.mp4", "img/scan.pdf"], "\(ahead.chunkDigests.keys)")
        #expect(dryRun.chunkDigests.isEmpty && files(dryRun.untracked) == files(own.untracked),
                "a dry run, which uploads nothing, hashes each file once and takes no chunk digests")
        for (path, chunks) in own.chunkDigests {
            #expect(ahead.chunkDigests[path]?.digests == chunks.digests && ahead.chunkDigests[path]?.hash == chunks.hash, "\(path)")
        }
        #expect(ahead.limits?.maxNoteBytes == own.limits?.maxNoteBytes)
        #expect(ahead.tracked[row.base.id]?.local == own.tracked[row.base.id]?.local)
        #expect(ahead.texts.count == own.texts.count && ahead.texts.count == 1301, "every new note's text and the edited one's")
        for file in own.untracked where EntryKind(path: file.path) == .note {
            let mine = ahead.texts.take(file.diskPath), theirs = own.texts.take(file.diskPath)
            #expect(mine?.text == theirs?.text && mine?.hash == file.hash && mine?.stat == file.stat, "\(file.path)")
        }
    }

    @Test("a scan that finds only a few new notes reads them itself, without a pass over every entry for the read-ahead")
    func fewNewNotesAreReadInline() async throws {
        let directory = try TemporaryDirectory("notes-readahead-few")
        defer { directory.remove() }
        let root = directory.appending("folder").path
        let folder = try SyncFolder.bind(root: root, server: "http://127.0.0.1:9", account: AccountName(userId: 1, username: "u"),
                                         device: "test")
        let count = NewFileReadAhead.minimumNewFiles - 1
        for index in 0..<count {
            try Data("note \(index)\n".utf8).write(to: URL(fileURLWithPath: root + "/n\(index).md"))
        }
        let scan = LocalScan(folder: folder, files: SafeFiles(root: root, scratch: folder.scratchDirectory),
                             ignore: folder.ignoreRules(), limits: { ResponseBudget.defaultLimits })
        let snapshot = try await scan.scan(rows: [])
        #expect(snapshot.untracked.count == count && snapshot.filesRead == count)
        #expect(snapshot.filesReadAhead == 0)
    }
}
