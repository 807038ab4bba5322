import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NotesCore
import NotesTestSupport
import Testing

/// Attachments against the real `notes-server` binary: HTTP framing of downloads (ranges, the
/// safety headers), backups, and the server's memory while it moves a large file both ways.
@Suite("Attachments: live server")
struct AttachmentLiveTests {
    @Test("Range requests answer 206 with Content-Range, and 416 past the end; both download endpoints agree")
    func rangeRequests() async throws {
        try await LiveServer.with { _, api in
            let bytes = testBytes(10_000, seed: 30)
            let hash = try await api.upload(bytes)
            let entry = try await api.putAttachment("data/sample.bin", hash: hash)
            for path in ["/v1/content/\(hash)", "/v1/attachments/\(entry.id)"] {
                let whole = try await api.send("GET", path)
                #expect(whole.status == 200 && Array(whole.body) == bytes && whole.header("Accept-Ranges") == "bytes")
                #expect(whole.header("ETag") == "\"\(hash)\"")
                let middle = try await api.send("GET", path, headers: ["Range": "bytes=100-199"])
                #expect(middle.status == 206 && Array(middle.body) == Array(bytes[100..<200]))
                #expect(middle.header("Content-Range") == "bytes 100-199/10000")
                let tail = try await api.send("GET", path, headers: ["Range": "bytes=-10"])
                #expect(tail.status == 206 && Array(tail.body) == Array(bytes[9990...]))
                let open = try await api.send("GET", path, headers: ["Range": "bytes=9000-"])
                #expect(open.status == 206 && open.body.count == 1000)
                let past = try await api.send("GET", path, headers: ["Range": "bytes=10000-"])
                #expect(past.status == 416 && past.header("Content-Range") == "bytes */10000" && past.errorCode == "range_not_satisfiable")
            }
            // Another user's store never answers for this hash.
            #expect(try await api.send("GET", "/v1/content/\(String(repeating: "0", count: 64))").status == 404)
        }
    }

    @Test("HTML and SVG attachments are served as downloads under sandbox and nosniff; a PNG inline", arguments: [
        ("page.html", "text/html", "attachment"), ("logo.svg", "image/svg+xml", "attachment"),
        ("feed.xml", "application/xml", "attachment"), ("photo.PNG", "image/png", "inline"),
        ("unknown.weird", "application/octet-stream", "attachment"),
    ])
    func safetyHeaders(path: String, contentType: String, disposition: String) async throws {
        try await LiveServer.with { _, api in
            // The bytes of an HTML page whatever the extension: the type never comes from content.
            let bytes = Array("<html><script>alert(1)</script></html>".utf8)
            let hash = try await api.upload(bytes)
            let entry = try await api.putAttachment("files/\(path)", hash: hash)
            let response = try await api.send("GET", "/v1/attachments/\(entry.id)")
            #expect(response.status == 200 && Array(response.body) == bytes)
            #expect(response.header("Content-Type") == contentType)
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.header("Content-Security-Policy") == "sandbox")
            #expect(response.header("Content-Disposition")?.hasPrefix("\(disposition); filename=\"\(path)\"") == true)
            let byHash = try await api.send("GET", "/v1/content/\(hash)")
            #expect(byHash.header("Content-Type") == "application/octet-stream" && byHash.header("Content-Security-Policy") == "sandbox")
        }
    }

    @Test("a chunk announcing the wrong length, or with no upload open, is refused from its head, before its body is sent")
    func chunkRefusedBeforeItsBody() async throws {
        try await LiveServer.with(["--max-attachment-size", "1M"]) { server, api in
            let bytes = testBytes(1000, seed: 33)
            let hash = SHA256.hex(of: bytes)
            // Only heads are sent: an answer can arrive only if the server gives it without the body.
            func head(_ path: String, length: Int) -> String {
                "PUT \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(api.token ?? "")\r\n"
                    + "Content-Digest: sha-256=:AAAA:\r\nContent-Length: \(length)\r\n\r\n"
            }
            let unopened = try await RawHTTP.exchange(port: UInt16(server.port), head("/v1/uploads/\(hash)/chunks/0", length: 1000))
            #expect(unopened.status == 404)
            #expect(try await api.openUpload(bytes).status == 201)
            let tooLong = try await RawHTTP.exchange(port: UInt16(server.port), head("/v1/uploads/\(hash)/chunks/0", length: 1_000_000))
            #expect(tooLong.status == 422)
            #expect(try JSONDecoder().decode(APIErrorBody.self, from: Data(tooLong.body)).error.code == "chunk_mismatch")
            let declared = try await api.send("POST", "/v1/uploads", json: UploadRequest(hash: String(repeating: "b", count: 64), size: 2 << 20))
            #expect(declared.status == 413 && declared.errorCode == "attachment_too_large")
            // Nothing half-stored: the refused chunk left no file, and the upload still has no chunk.
            #expect(try await api.send("GET", "/v1/uploads/\(hash)").decode(UploadState.self).received == [])
            #expect(try await api.upload(bytes) == hash)
        }
    }

    @Test("a backup carries the attachment bytes: a server started on the restored copy serves them", .sqliteOnly, .directoryStoreOnly)
    func backupThenRestore() async throws {
        try await withTemporaryDirectory { folder in
            let backup = folder.appending("backup.sqlite").path
            let bytes = testBytes(20_000, seed: 31)
            var entryID: NoteID?
            try await LiveServer.with { server, api in
                let hash = try await api.upload(bytes)
                entryID = try await api.putAttachment("img/kept.png", hash: hash).id
                // An upload nothing refers to is not needed for the copy to be whole, but harmless.
                try await api.upload(testBytes(100, seed: 32))
                let result = try await server.admin(["backup", backup])
                #expect(result.exitCode == 0, "\(result.stderr)")
            }
            let id = try #require(entryID)
            #expect(storedContentFiles(databasePath: backup).count == 2)
            let restored = try await TestServer(database: backup)
            defer { Task { _ = await restored.stop() } }
            let api = try await TestAPIClient(baseURL: restored.baseURL).signedIn(TestAccount.username, password: TestAccount.password)
            let served = try await api.send("GET", "/v1/attachments/\(id)")
            #expect(served.status == 200 && Array(served.body) == bytes)
            _ = await restored.stop()
        }
    }

    @Test("receiving and serving a 300 MiB attachment keeps the server's peak memory bounded")
    func largeFileKeepsMemoryBounded() async throws {
        try await LiveServer.with(["--max-attachment-size", "512M"]) { server, api in
            let idle = try Self.peakResidentBytes(of: server.process.processIdentifier)
            let limits = try await api.send("GET", "/v1/limits").decode(ServerLimits.self)
            let chunkSize = try #require(limits.uploadChunkBytes)
            let size = 300 * 1024 * 1024
            let chunkCount = UploadState.chunkCount(size: size, chunkSize: chunkSize)
            /// Chunk `index`, generated (the test holds one chunk at a time too).
            func chunk(_ index: Int) -> [UInt8] {
                var bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: index &* 37), count: min(chunkSize, size - index * chunkSize))
                withUnsafeBytes(of: UInt64(index).littleEndian) { for (offset, byte) in $0.enumerated() { bytes[offset] = byte } }
                return bytes
            }
            var hasher = SHA256Hasher()
            for index in 0..<chunkCount { hasher.update(chunk(index)) }
            let hash = Hex.encode(hasher.finalize())
            let opened = try await api.send("POST", "/v1/uploads", json: UploadRequest(hash: hash, size: size))
            #expect(opened.status == 201)
            // Not a timing test: on a busy machine joining and flushing 300 MiB may take a while.
            let patient = URLSession(configuration: {
                let configuration = URLSessionConfiguration.ephemeral
                configuration.timeoutIntervalForRequest = 900
                return configuration
            }())
            func send(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) async throws -> Int {
                var request = URLRequest(url: URL(string: api.baseURL.absoluteString + path)!)
                request.httpMethod = method
                request.httpBody = body
                request.setValue("Bearer \(api.token ?? "")", forHTTPHeaderField: "Authorization")
                for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
                let (_, response) = try await patient.data(for: request)
                return (response as? HTTPURLResponse)?.statusCode ?? 0
            }
            for index in 0..<chunkCount {
                let bytes = chunk(index)
                let status = try await send("PUT", "/v1/uploads/\(hash)/chunks/\(index)", body: Data(bytes),
                                            headers: ["Content-Digest": ContentDigest.header(sha256: SHA256.digest(of: bytes))])
                try #require(status == 204, "chunk \(index) answered \(status)")
            }
            #expect(try await send("POST", "/v1/uploads/\(hash)/complete") == 201)
            let entry = try await api.putAttachment("video/big.bin", hash: hash)

            // Download to a file, then check it in pieces.
            var request = URLRequest(url: api.baseURL.appendingPathComponent("v1/attachments/\(entry.id)"))
            request.setValue("Bearer \(try #require(api.token))", forHTTPHeaderField: "Authorization")
            let (file, response) = try await patient.download(for: request)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            var downloaded = SHA256Hasher()
            var count = 0
            while let data = try handle.read(upToCount: 8 << 20), !data.isEmpty {
                downloaded.update(data)
                count += data.count
            }
            #expect(count == size && Hex.encode(downloaded.finalize()) == hash)

            let peak = try Self.peakResidentBytes(of: server.process.processIdentifier)
            #expect(peak - idle < 100 * 1024 * 1024, "server peak \(peak >> 20) MiB, idle \(idle >> 20) MiB")
        }
    }

    /// `VmHWM` of a process: the most memory it has had resident, in bytes.
    static func peakResidentBytes(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? ""))
        return kilobytes * 1024
    }
}
