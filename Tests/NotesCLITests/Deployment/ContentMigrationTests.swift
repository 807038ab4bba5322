import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// `notes-server migrate-content` with the real programs: a server on its own content store
/// (the directory beside SQLite, or PostgreSQL's rows), a folder syncing through it, and a real
/// SeaweedFS as the target. `Tests/s3/run.sh` runs it on both backends without the S3 pass's
/// store, so the server starts on the store beside its database.
@Suite("Content migration to S3", .enabled(if: TestSeaweedFS.executable != nil && !TestContentStore.isS3,
                                           Comment(rawValue: TestSeaweedFS.missingReason + "; and not on the S3 pass, whose servers start on S3")))
struct ContentMigrationTests {
    @Test("migrate-content moves every attachment to S3 while a folder syncs: an interrupted run resumes, each object is verified, the server switches without a restart and serves every file from the bucket")
    func migratesWhileSyncing() async throws {
        let store = try await TestSeaweedFS()
        do {
            try await LiveServer.with([], account: .loggedIn, environment: store.credentials) { h in
                try await run(h, store: store)
            }
        } catch {
            await store.remove()
            throw error
        }
        await store.remove()
    }

    private func run(_ h: LiveServer, store: TestSeaweedFS) async throws {
        try await h.initFolder("a")
        var hashes = Set<String>()
        for index in 0..<120 {
            let bytes = SyncAttachmentTests.bytes(20_000 + index, seed: UInt64(200 + index))
            try h.write("a", "files/\(index).bin", bytes)
            hashes.insert(SHA256.hex(of: [UInt8](bytes)))
        }
        try h.write("a", "index.md", "# Files\n")
        try await h.sync("a")
        let arguments = ["migrate-content", "--db", h.server.databaseLocation, "--to", "s3://\(store.bucket)/moved",
                         "--s3-endpoint", store.endpoint, "--settle", "3"]
        let environment = store.credentials.merging(["PATH": "/usr/bin:/bin"]) { $1 }

        // Interrupted: killed once it has copied its first content.
        let first = try ChildProcess(BuiltProducts.server, arguments, environment: environment, stdout: .pipe, stderr: .pipe)
        let output = PipeCollector(first.standardOutput!)
        _ = PipeCollector(first.standardError!)
        let copying = try await waitUntil(timeout: 60) { output.text.contains("copied ") || first.hasExited }
        first.send(SIGKILL)
        _ = await first.wait()
        #expect(copying && !output.text.contains("Moved "), "the first run was stopped before it finished: \(output.text)")

        // Run again to the end while the folder keeps syncing new attachments and notes.
        let second = Task { try await ProcessRunner.run(BuiltProducts.server, arguments, environment: environment) }
        var round = 0
        while round < 6 {
            let bytes = SyncAttachmentTests.bytes(30_000, seed: UInt64(500 + round))
            try h.write("a", "during/\(round).bin", bytes)
            try h.write("a", "during/\(round).md", "# Written during the migration \(round)\n")
            hashes.insert(SHA256.hex(of: [UInt8](bytes)))
            try await h.sync("a")
            round += 1
            try await Task.sleep(for: .milliseconds(700))
        }
        let result = try await second.value
        #expect(result.exitCode == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("Moved "), "\(result.stdout)")
        #expect(result.stdout.contains("Carrying on") || !result.stdout.contains("(0 already there"),
                "the resumed run verified what the first had copied instead of copying it again: \(result.stdout)")
        let reads = try await waitUntil(timeout: 10) { h.server.log.contains("content store: now s3://\(store.bucket)/moved") }
        #expect(reads, "the running server switched to the bucket: \(h.server.log.suffix(2000))")

        // Every content is an object in the bucket, under the user's prefix.
        let keys = try await store.keys(prefix: "moved/")
        let stored = Set(keys.compactMap { $0.split(separator: "/").last.map(String.init) })
        #expect(hashes.isSubset(of: stored), "missing from the bucket: \(hashes.subtracting(stored).count) of \(hashes.count)")

        // Written after the switch: straight to the bucket.
        let after = SyncAttachmentTests.bytes(40_000, seed: 999)
        try h.write("a", "after.bin", after)
        try await h.sync("a")
        #expect(try await store.keys(prefix: "moved/").contains { $0.hasSuffix(SHA256.hex(of: [UInt8](after))) })

        // The old directory gone, every file still comes back byte for byte, from the bucket.
        if let path = TestDatabase.existing(h.server.databaseLocation).sqlitePath {
            try FileManager.default.removeItem(atPath: path + ".content")
        }
        try await h.initFolder("b")
        try await h.sync("b")
        #expect(try h.tree("b") == h.tree("a"))
    }

}
