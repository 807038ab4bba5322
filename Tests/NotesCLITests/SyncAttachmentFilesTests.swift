import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The parts of attachment sync that need no server, on a real folder: streaming hashes and
/// ranged reads, staged downloads placed whole, the scan (what syncs, what is named as skipped,
/// what is never read again), and conflict-copy names that keep the attachment's extension.
@Suite("Sync attachment files")
struct SyncAttachmentFilesTests {
    private func withFiles(_ body: (SafeFiles) throws -> Void) throws {
        let directory = try TemporaryDirectory("notes-attfiles")
        defer { directory.remove() }
        let root = directory.appending("root").path
        try FileManager.default.createDirectory(atPath: root + "/.notes/tmp", withIntermediateDirectories: true)
        try body(SafeFiles(root: root, scratch: root + "/.notes/tmp"))
    }

    private static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    @Test("a file larger than the hash buffer hashes as its whole bytes do, with the metadata the scan compares")
    func streamingHashEqualsTheWholeFilesHash() throws {
        try withFiles { files in
            let bytes = Self.bytes(POSIXIO.hashBufferBytes * 2 + 12_345, seed: 1)
            let stat = try #require(try files.write(bytes, to: "img/big.bin", expecting: .absent))
            let hashed = try files.hash("img/big.bin")
            #expect(hashed.hash == SHA256.hex(of: bytes))
            #expect(hashed.stat == stat)
            _ = try files.write([], to: "empty.bin", expecting: .absent)
            #expect(try files.hash("empty.bin").hash == SHA256.hex(of: [UInt8]()))
        }
    }

    @Test("a file larger than a chunk is hashed whole and chunk by chunk from one scan: each digest is its chunk's SHA-256; a file of one chunk gets none")
    func scanTakesEachChunksDigest() throws {
        try withFiles { files in
            let chunk = 100_000
            let bytes = Self.bytes(2 * chunk + 5_000, seed: 3)
            let stat = try #require(try files.write(bytes, to: "video.mp4", expecting: .absent))
            let hashed = try files.hash("video.mp4", chunkBytes: chunk)
            #expect(hashed.hash == SHA256.hex(of: bytes) && hashed.stat == stat)
            let chunks = try #require(hashed.chunks)
            let expected = stride(from: 0, to: bytes.count, by: chunk).map { SHA256.digest(of: Array(bytes[$0..<min($0 + chunk, bytes.count)])) }
            #expect(chunks.digests == expected && chunks.chunkSize == chunk)
            #expect(chunks.digest(of: 2, chunkSize: chunk) == expected[2])
            #expect(chunks.digest(of: 0, chunkSize: chunk * 2) == nil, "digests taken with another chunk size serve no upload")
            #expect(chunks.digest(of: 3, chunkSize: chunk) == nil)

            _ = try files.write(Array(bytes[..<chunk]), to: "exact.bin", expecting: .absent)
            #expect(try files.hash("exact.bin", chunkBytes: chunk).chunks == nil, "sent whole: no chunk digests")
        }
    }

    @Test("a ranged read gives the bytes at the offset, and nothing once the file changed since it was hashed")
    func rangedReadsRefuseAChangedFile() throws {
        try withFiles { files in
            let bytes = Self.bytes(100_000, seed: 2)
            let stat = try #require(try files.write(bytes, to: "a.pdf", expecting: .absent))
            #expect(try files.readRange("a.pdf", offset: 65_536, count: 1000, expecting: stat) == Array(bytes[65_536..<66_536]))
            let changed = try #require(try files.write(Array(bytes.reversed()), to: "a.pdf", expecting: .file(stat)))
            #expect(try files.readRange("a.pdf", offset: 0, count: 10, expecting: stat) == nil, "a stale stat must not be sent")
            #expect(try files.readRange("a.pdf", offset: 99_990, count: 10, expecting: changed) == Array(bytes.reversed()[99_990...]))
        }
    }

    @Test("a staged download lands whole at its path, never over a file that appeared meanwhile, and leaves no temporary file")
    func stagedFilesArePlacedWholeOrNotAtAll() throws {
        try withFiles { files in
            let bytes = Self.bytes(300_000, seed: 3)
            let staged = try StagedFile(scratch: files.scratch, for: "pics/p.png")
            for start in stride(from: 0, to: bytes.count, by: 64 * 1024) {
                try staged.append(Array(bytes[start..<min(start + 64 * 1024, bytes.count)]))
            }
            #expect(staged.finalHash() == SHA256.hex(of: bytes))
            let placed = try #require(try files.install(staged, at: "pics/p.png", expecting: .absent, durable: true))
            #expect(try files.read("pics/p.png").bytes == bytes)
            #expect(placed.size == Int64(bytes.count))

            // Someone saved a file at the path after the check: the download is dropped, theirs stays.
            let late = try StagedFile(scratch: files.scratch, for: "pics/p.png")
            try late.append([1, 2, 3])
            #expect(try files.install(late, at: "pics/p.png", expecting: .absent, durable: true) == nil)
            #expect(try files.read("pics/p.png").bytes == bytes)
            #expect(try FileManager.default.contentsOfDirectory(atPath: files.scratch).isEmpty)
        }
    }

    @Test("a staged file cannot be placed through a linked folder: nothing lands outside the folder")
    func stagedFilesNeverLandThroughALink() throws {
        try withFiles { files in
            let outside = try TemporaryDirectory("notes-outside")
            defer { outside.remove() }
            try FileManager.default.createSymbolicLink(atPath: files.root + "/link", withDestinationPath: outside.path)
            let staged = try StagedFile(scratch: files.scratch, for: "link/evil.png")
            try staged.append([0xFF, 0xD8])
            #expect { try files.install(staged, at: "link/evil.png", expecting: .absent, durable: true) } throws: {
                ($0 as? SyncFileError)?.unsafe == true
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: files.scratch).isEmpty)
        }
    }

    @Test("an attachment's conflict copy keeps its extension, so it stays an attachment that opens like the original", arguments: [
        ("img/photo.png", "img/photo.conflict-laptop-20261201-100000.png"),
        ("Makefile", "Makefile.conflict-laptop-20261201-100000"),
        ("a/notes.md", "a/notes.conflict-laptop-20261201-100000.md"),
    ])
    func conflictCopiesKeepTheirKind(path: String, copy: String) {
        let made = EntryName.conflictPath(for: path, device: "laptop", millisecondsSinceEpoch: 1_796_119_200_000, attempt: 1)
        #expect(made == copy)
        #expect(EntryKind(path: made) == EntryKind(path: path))
        #expect(EntryName.problem(made) == nil)
        #expect(EntryName.parseConflict(made)?.entry == path)
        #expect(EntryName.parseConflict(made)?.device == "laptop")
    }

    @Test("""
        the scan takes every regular file: .md and .MARKDOWN as notes, the rest as attachments; it names what \
        .notesignore or the size limit leaves out, says nothing of editor files, and never reads an unchanged file again
        """)
    func scanTakesEveryFileAndRereadsOnlyChangedOnes() async throws {
        let directory = try TemporaryDirectory("notes-attscan")
        defer { directory.remove() }
        let root = directory.appending("folder").path
        let folder = try SyncFolder.bind(root: root, server: "http://127.0.0.1:9", account: AccountName(userId: 1, username: "u"),
                                         device: "test")
        func put(_ path: String, _ bytes: [UInt8]) throws {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        let image = Self.bytes(200_000, seed: 4)
        try put("a.md", Array("# A\n".utf8))
        try put("Notes/B.MARKDOWN", Array("b\n".utf8))
        try put("img/photo.png", image)
        try put("docs/big.pdf", Self.bytes(5000, seed: 5))
        try put("build.log", [1])
        try put("4913", [])
        try put("a.md.swp", [0])
        try put(".hidden", [0])
        try put(".notesignore", Array("*.log\n".utf8))
        var small = ResponseBudget.defaultLimits
        small.maxAttachmentBytes = 4096
        let limits = small
        let scan = LocalScan(folder: folder, files: SafeFiles(root: root, scratch: folder.scratchDirectory),
                             ignore: folder.ignoreRules(), limits: { limits })

        let first = try await scan.scan(rows: [])
        let found = Dictionary(uniqueKeysWithValues: first.untracked.map { ($0.path, $0.hash) })
        #expect(found == ["a.md": SHA256.hex(of: Array("# A\n".utf8)), "Notes/B.MARKDOWN": SHA256.hex(of: Array("b\n".utf8))],
                "the image is over the 4096-byte limit here")
        #expect(first.skipped.map(\.path).sorted() == ["build.log", "docs/big.pdf", "img/photo.png"], "\(first.skipped)")
        #expect(first.skipped.first { $0.path == "img/photo.png" }?.reason == .tooLarge)
        #expect(first.skipped.first { $0.path == "img/photo.png" }?.detail.contains("4096") == true)
        #expect(first.skipped.first { $0.path == "build.log" }?.reason == .ignored)

        // With the default limit the image and the PDF sync; once indexed, neither is read again.
        let open = LocalScan(folder: folder, files: SafeFiles(root: root, scratch: folder.scratchDirectory),
                             ignore: folder.ignoreRules(), limits: { ResponseBudget.defaultLimits })
        let second = try await open.scan(rows: [])
        #expect(Set(second.untracked.map(\.path)) == ["a.md", "Notes/B.MARKDOWN", "img/photo.png", "docs/big.pdf"])
        #expect(second.untracked.first { $0.path == "img/photo.png" }?.hash == SHA256.hex(of: image))
        let rows = second.untracked.map {
            IndexRow(base: SyncBase(id: NoteID(), path: $0.path, rev: 1, hash: $0.hash), diskPath: $0.diskPath, stat: $0.stat)
        }
        let unchanged = try await open.scan(rows: rows)
        #expect(unchanged.filesRead == 0)
        #expect(unchanged.tracked.values.allSatisfy { $0.local == .clean })

        // An edit that keeps the size is found by its time and inode; only that file is read.
        try put("img/photo.png", Array(image.reversed()))
        let edited = try await open.scan(rows: rows)
        #expect(edited.filesRead == 1)
        let photo = try #require(edited.tracked.values.first { $0.row.base.path == "img/photo.png" })
        #expect(photo.local == .changed(path: "img/photo.png", hash: SHA256.hex(of: Array(image.reversed()))))

        // A moved image is a rename by hash (same id), not a delete and a new file.
        try put("img/photo.png", image)
        try FileManager.default.createDirectory(atPath: root + "/pics", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: root + "/img/photo.png", toPath: root + "/pics/photo.png")
        let moved = try await open.scan(rows: rows)
        let renamed = try #require(moved.tracked[photo.row.base.id])
        #expect(renamed.local == .changed(path: "pics/photo.png", hash: SHA256.hex(of: image)))
        #expect(moved.untracked.isEmpty)
    }
}

extension LocalScan {
    /// Walks the folder, then compares its files with `rows`, as a sync's scan does.
    func scan(rows: [IndexRow]) async throws -> LocalSnapshot {
        let walk = Self.startWalk(of: folder)
        return try await scan(rows: rows) { try await walk.value }
    }
}
