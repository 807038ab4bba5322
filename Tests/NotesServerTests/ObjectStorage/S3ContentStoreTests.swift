import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The S3 content store against a real SeaweedFS started for each test (signed requests only),
/// with the real `notes-server` binary.
@Suite("S3 content store", .enabled(if: TestSeaweedFS.executable != nil, Comment(rawValue: TestSeaweedFS.missingReason)))
struct S3ContentStoreTests {
    /// Runs `body` with a fresh SeaweedFS, removed afterwards whatever happens.
    static func withStore(_ body: (TestSeaweedFS) async throws -> Void) async throws {
        let store = try await TestSeaweedFS()
        do {
            try await body(store)
        } catch {
            await store.remove()
            throw error
        }
        await store.remove()
    }

    static func bucket(_ store: TestSeaweedFS, secret: String? = nil) throws -> S3Bucket {
        let location = try S3Location(store: "s3://\(store.bucket)/signing", endpoint: store.endpoint, region: nil)
        let credentials = S3Credentials(accessKeyID: store.accessKeyID, secretAccessKey: secret ?? store.secretAccessKey)
        return ContentStoreChoice.bucket(location, credentials)
    }

    @Test("the server's signed requests are accepted; the same requests signed with a wrong secret, or unsigned, are refused with 403")
    func signaturesAreChecked() async throws {
        try await Self.withStore { store in
            let bucket = try Self.bucket(store)
            let bytes = Array("hello, object store".utf8)
            let key = bucket.location.key("probe/object")
            try await onOwnThread { try bucket.put(key, bytes: bytes, label: "a test object") }
            let file = try #require(try await onOwnThread { try bucket.get(key, label: "a test object") })
            defer { file.close() }
            var hasher = SHA256Hasher()
            #expect(try S3BlobStore.hash(file, into: &hasher) == bytes.count)
            #expect(Hex.encode(hasher.finalize()) == SHA256.hex(of: bytes))
            #expect(try await onOwnThread { try bucket.list(prefix: bucket.location.key("probe/"), label: "list") }.map(\.key) == [key])

            let forged = try Self.bucket(store, secret: "not-the-secret")
            await #expect {
                try await onOwnThread { try forged.put(bucket.location.key("probe/forged"), bytes: bytes, label: "a forged object") }
            } throws: { error in
                guard case .status(_, let status, _) = error as? S3Error else { return false }
                return status == 403
            }
            #expect(try await store.curl(["\(store.endpoint)/\(store.bucket)/\(key)"], signed: false).status == 403)
            #expect(try await store.keys(prefix: "signing/probe/") == [key])
        }
    }

    @Test("a chunked upload becomes one content object under the user's prefix, checked against its hash; its chunks are gone and it downloads whole")
    func chunkedUploadBecomesOneObject() async throws {
        try await Self.withStore { store in
            try await LiveServer.with(store.serveArguments(prefix: "deploy"), environment: store.credentials) { (live: LiveServer) in
                let api = live.api
                let bytes = testBytes(8 * 1024 * 1024 + 50_000, seed: 61)
                let hash = try await api.upload(bytes)
                let entry = try await api.putAttachment("big.bin", hash: hash)
                let keys = try await store.keys(prefix: "deploy/")
                #expect(keys.count == 1 && keys[0].hasPrefix("deploy/") && keys[0].hasSuffix("/\(hash.prefix(2))/\(hash)"), "\(keys)")
                let download = try await api.send("GET", "/v1/attachments/\(entry.id)")
                #expect(download.status == 200 && SHA256.hex(of: download.body) == hash)
                let health = try await api.send("GET", "/healthz")
                #expect(health.status == 200 && health.text.contains(#""content_store":"ok""#), "\(health.text)")
            }
        }
    }

    @Test("an upload whose chunks do not hash to its name is refused, and no content object is written")
    func mismatchedUploadStoresNothing() async throws {
        try await Self.withStore { store in
            try await LiveServer.with(store.serveArguments(prefix: "mismatch"), environment: store.credentials) { (live: LiveServer) in
                let api = live.api
                let bytes = testBytes(8 * 1024 * 1024 + 10, seed: 62)
                var other = bytes
                other[other.count - 1] ^= 0xFF
                let hash = SHA256.hex(of: bytes)
                let opened = try await api.openUpload(bytes)
                #expect(opened.status == 201)
                let chunk = 8 * 1024 * 1024
                #expect(try await api.sendChunk(other[0..<chunk], hash: hash, index: 0).status == 204)
                #expect(try await api.sendChunk(other[chunk...], hash: hash, index: 1).status == 204)
                let complete = try await api.send("POST", "/v1/uploads/\(hash)/complete")
                #expect(complete.status == 422, "\(complete.text)")
                #expect(try await store.keys(prefix: "mismatch/").isEmpty)
                #expect(try await api.send("GET", "/v1/content/\(hash)").status == 404)
            }
        }
    }

    @Test("two servers on one PostgreSQL database and one bucket: a chunked upload started through one finishes through the other",
          .enabled(if: TestPostgresCluster.url != nil, "needs the PostgreSQL test cluster (NOTES_TEST_POSTGRES_URL)"))
    func uploadMovesBetweenServers() async throws {
        try await Self.withStore { store in
            let database = try await TestDatabase.make(on: .postgres)
            defer { Task { await database.drop() } }
            let arguments = store.serveArguments(prefix: "shared")
            let first = try await TestServer(extraArguments: arguments, database: database.location, environment: store.credentials)
            let second = try await TestServer(extraArguments: arguments, database: database.location, environment: store.credentials)
            defer { Task { await first.stop(); await second.stop() } }
            try await first.addUser(TestAccount.username, password: TestAccount.password)
            let one = try await TestAPIClient(first).signedIn(TestAccount.username, password: TestAccount.password)
            let other = try await TestAPIClient(second).signedIn(TestAccount.username, password: TestAccount.password)

            let bytes = testBytes(2 * 8 * 1024 * 1024 + 123, seed: 63)
            let hash = SHA256.hex(of: bytes)
            #expect(try await one.openUpload(bytes).status == 201)
            let chunk = 8 * 1024 * 1024
            #expect(try await one.sendChunk(bytes[0..<chunk], hash: hash, index: 0).status == 204)
            let resumed = try await other.openUpload(bytes)
            #expect(resumed.status == 200)
            #expect(try resumed.decode(UploadState.self).received == [0])
            #expect(try await other.sendChunk(bytes[chunk..<2 * chunk], hash: hash, index: 1).status == 204)
            #expect(try await other.sendChunk(bytes[(2 * chunk)...], hash: hash, index: 2).status == 204)
            let completed = try await other.send("POST", "/v1/uploads/\(hash)/complete")
            #expect(completed.status == 201, "\(completed.text) \(second.log.suffix(2000))")
            let entry = try await other.putAttachment("shared.bin", hash: hash)
            let download = try await one.send("GET", "/v1/attachments/\(entry.id)")
            #expect(download.status == 200 && SHA256.hex(of: download.body) == hash)
            await first.stop()
            await second.stop()
        }
    }

    @Test("with the store stopped, attachment reads and writes answer 503 with Retry-After, notes are still written, /healthz says so; started again, the upload resumes and completes")
    func outageAnswers503AndRecovers() async throws {
        try await Self.withStore { store in
            try await LiveServer.with(store.serveArguments(prefix: "outage"), environment: store.credentials) { (live: LiveServer) in
                let api = live.api
                let small = testBytes(5_000, seed: 64)
                let smallHash = try await api.upload(small)
                let bytes = testBytes(8 * 1024 * 1024 + 4_000, seed: 65)
                let hash = SHA256.hex(of: bytes)
                let chunk = 8 * 1024 * 1024
                #expect(try await api.openUpload(bytes).status == 201)
                #expect(try await api.sendChunk(bytes[0..<chunk], hash: hash, index: 0).status == 204)

                await store.stop()
                let refusedChunk = try await api.sendChunk(bytes[chunk...], hash: hash, index: 1)
                #expect(refusedChunk.status == 503 && refusedChunk.header("Retry-After") != nil && refusedChunk.errorCode == "content_store_unavailable",
                        "\(refusedChunk.text)")
                let refusedRead = try await api.send("GET", "/v1/content/\(smallHash)")
                #expect(refusedRead.status == 503 && refusedRead.header("Retry-After") != nil)
                let other = testBytes(3_000, seed: 66)
                let refusedWhole = try await api.send("PUT", "/v1/content/\(SHA256.hex(of: other))", body: Data(other),
                                                      headers: ["Content-Type": "application/octet-stream"])
                #expect(refusedWhole.status == 503 && refusedWhole.header("Retry-After") != nil, "\(refusedWhole.text)")
                let note = try await api.create("still-working.md", "# Notes keep working\n")
                #expect(note.path == "still-working.md")
                let health = try await api.send("GET", "/healthz")
                #expect(health.status == 200 && health.text.contains(#""content_store":"unreachable""#), "\(health.text)")

                try await store.start()
                let resumed = try await api.openUpload(bytes)
                #expect(try resumed.decode(UploadState.self).received == [0], "only the chunk stored before the outage: \(resumed.text)")
                #expect(try await api.sendChunk(bytes[chunk...], hash: hash, index: 1).status == 204)
                #expect(try await api.send("POST", "/v1/uploads/\(hash)/complete").status == 201)
                let download = try await api.send("GET", "/v1/content/\(hash)")
                #expect(download.status == 200 && SHA256.hex(of: download.body) == hash)
                #expect(try await api.send("GET", "/v1/content/\(smallHash)").body == Data(small))
            }
        }
    }
}
