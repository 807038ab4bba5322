import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Something that answers the attachment API: the in-process app or a live server.
protocol AttachmentAPI: Sendable {
    func request(_ method: String, _ path: String, query: [(String, String)], body: Data?, headers: [String: String]) async throws -> TestAPIResponse
}

extension TestAPIClient: AttachmentAPI {
    func request(_ method: String, _ path: String, query: [(String, String)], body: Data?, headers: [String: String]) async throws -> TestAPIResponse {
        try await send(method, path, query: query, headers: headers, body: body)
    }
}

/// The in-process app with a bearer token; a streamed route's body goes through the router's
/// admission and into its sink, as the HTTP layer does it.
struct SignedInApp: AttachmentAPI {
    let app: TestApp
    let token: String

    func request(_ method: String, _ path: String, query: [(String, String)], body: Data?, headers: [String: String]) async throws -> TestAPIResponse {
        var all = HTTPHeaders()
        all.add(name: "Authorization", value: "Bearer \(token)")
        for (name, value) in headers { all.add(name: name, value: value) }
        let bytes = body.map(Array.init) ?? []
        if !bytes.isEmpty { all.add(name: "Content-Length", value: String(bytes.count)) }
        let head = HTTPRequest(method: method, path: path, query: Dictionary(query, uniquingKeysWith: { $1 }), headers: all)
        var sink: (any RequestBodySink)?
        if !bytes.isEmpty {
            switch app.application.router.admitBody(of: head) {
            case .refuse(let error):
                return Self.convert(.error(error))
            case .accept:
                break
            case .stream(let streamed, let maxBytes):
                guard bytes.count <= maxBytes else { streamed.discard(); return Self.convert(.error(.payloadTooLarge(limit: maxBytes))) }
                _ = bytes.withUnsafeBytes { streamed.write($0) }
                sink = streamed
            }
        }
        defer { sink?.discard() }
        let request = HTTPRequest(method: method, path: path, query: head.query, headers: all,
                                  body: sink == nil ? bytes : [], bodySink: sink)
        switch app.application.router.respond(to: request) {
        case .now(let answer): return Self.convert(answer)
        case .later(let work): return Self.convert(await work())
        }
    }

    /// The answer as a test sees it; a file body is read here (tests use small files in-process).
    static func convert(_ response: HTTPResponse) -> TestAPIResponse {
        var names: [String: String] = [:]
        for (name, value) in response.headers { names[name.lowercased()] = value }
        var body = Data(response.body)
        if let file = response.file, let fd = file.take() {
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            try? handle.seek(toOffset: UInt64(file.offset))
            body = (try? handle.read(upToCount: Int(file.length))) ?? Data()
        }
        return TestAPIResponse(status: response.status, headers: names, body: body)
    }

    static func with(_ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (SignedInApp) async throws -> Void) async throws {
        try await TestApp.with(configure) { app in
            try await body(SignedInApp(app: app, token: try await app.signIn().accessToken))
        }
    }
}

extension AttachmentAPI {
    func send(_ method: String, _ path: String, query: [(String, String)] = [], body: Data? = nil,
              headers: [String: String] = [:]) async throws -> TestAPIResponse {
        try await request(method, path, query: query, body: body, headers: headers)
    }

    func send<T: Encodable>(_ method: String, _ path: String, json value: T) async throws -> TestAPIResponse {
        try await request(method, path, query: [], body: try WireJSON.encoder().encode(value), headers: ["Content-Type": "application/json"])
    }

    /// Opens an upload of `bytes`.
    func openUpload(_ bytes: [UInt8]) async throws -> TestAPIResponse {
        try await send("POST", "/v1/uploads", json: UploadRequest(hash: SHA256.hex(of: bytes), size: bytes.count))
    }

    /// Sends chunk `index` of `bytes` with its digest (or `digest` instead).
    func sendChunk(_ bytes: ArraySlice<UInt8>, hash: String, index: Int, digest: [UInt8]? = nil) async throws -> TestAPIResponse {
        try await send("PUT", "/v1/uploads/\(hash)/chunks/\(index)", body: Data(bytes),
                       headers: ["Content-Digest": ContentDigest.header(sha256: digest ?? SHA256.digest(of: bytes)),
                                 "Content-Type": "application/octet-stream"])
    }

    /// Uploads `bytes` whole (open, every chunk, complete) and returns the hash; fails unless stored.
    @discardableResult
    func upload(_ bytes: [UInt8]) async throws -> String {
        let hash = SHA256.hex(of: bytes)
        let opened = try await openUpload(bytes)
        try #require([200, 201].contains(opened.status), "open answered \(opened.status): \(opened.text)")
        let state = try opened.decode(UploadState.self)
        for index in 0..<state.chunkCount where !state.received.contains(index) {
            let start = index * state.chunkSize
            let chunk = try await sendChunk(bytes[start..<min(start + state.chunkSize, bytes.count)], hash: hash, index: index)
            try #require(chunk.status == 204, "chunk \(index) answered \(chunk.status): \(chunk.text)")
        }
        let complete = try await send("POST", "/v1/uploads/\(hash)/complete")
        try #require(complete.status == 201, "complete answered \(complete.status): \(complete.text)")
        return hash
    }

    /// One batch `put` of an attachment at `path` with content `hash`; returns the result.
    func putAttachment(_ path: String, hash: String, id: NoteID = NoteID(), ifMatch: Int64? = nil) async throws -> BatchResult {
        let operation = BatchOperation(op: .put, id: id, path: path, ifMatch: ifMatch, ifNoneMatch: ifMatch == nil ? "*" : nil,
                                       kind: .attachment, hash: hash)
        let response = try await send("POST", "/v1/batch", json: BatchRequest(operations: [operation]))
        try #require(response.status == 200, "batch answered \(response.status): \(response.text)")
        return try #require(try response.decode(BatchResponse.self).results.first)
    }
}

/// What the app's content store holds, whichever backend keeps it: for SQLite the files of its
/// content directory (`USER/AA/HASH`), for PostgreSQL one `USER/HASH` per content whose bytes
/// are in `content_chunks`, for an S3 store its content objects (`USER/AA/HASH` under the
/// prefix); uploads in progress and temporaries are not content.
func storedContents(_ app: TestApp) throws -> [String] {
    if let s3 = (app.application.contents.blobs as? SwitchingBlobStore)?.current as? S3BlobStore {
        let root = s3.bucket.location.key("")
        return try s3.bucket.list(prefix: root, label: "list the test's contents")
            .map { String($0.key.dropFirst(root.count)) }
            .filter { $0.split(separator: "/").count == 3 && !$0.contains("/uploads/") }
    }
    guard case .postgres = app.application.database else { return storedContentFiles(databasePath: app.databasePath) }
    return try app.application.database.read { db in
        try db.query("SELECT DISTINCT user_id, hash FROM content_chunks ORDER BY user_id, hash") { "\($0.int64(0))/\($0.string(1))" }
    }
}

/// Files in a content store that hold content (not chunks or temporaries).
func storedContentFiles(databasePath: String) -> [String] {
    let root = databasePath + ".content"
    guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
    var files: [String] = []
    while let name = walker.nextObject() as? String {
        guard !name.hasPrefix("uploads"), !name.hasPrefix("tmp"), !name.hasPrefix(".") else { continue }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
            files.append(name)
        }
    }
    return files.sorted()
}

/// Deterministic bytes for a test file: `count` bytes drawn from `seed`.
func testBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var random = SeededRandom(seed: seed)
    var bytes = [UInt8]()
    bytes.reserveCapacity(count)
    while bytes.count < count {
        var word = random.next()
        for _ in 0..<min(8, count - bytes.count) {
            bytes.append(UInt8(truncatingIfNeeded: word))
            word >>= 8
        }
    }
    return bytes
}
