import Foundation
import NotesCore

/// The S3 operations the content store uses, on one bucket: each request built, signed
/// (`SigV4Signer`, the payload's SHA-256 in `x-amz-content-sha256`, so the store checks every
/// body it receives) and sent through an `ObjectStorageClient`, and its answer read.
struct S3Bucket: Sendable {
    let location: S3Location
    let signer: SigV4Signer
    let client: any ObjectStorageClient
    var now: @Sendable () -> Date = { Date() }

    /// The SHA-256 of no bytes, the payload hash of a request without a body.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// An object found by `list`.
    struct Listed: Sendable, Equatable {
        let key: String
        let size: Int
        let lastModified: Date?
    }

    /// Stores the file open at `descriptor` (`size` bytes whose SHA-256 is `sha256`) as `key`.
    func put(_ key: String, descriptor: Int32, size: Int, sha256: String, label: String) throws(S3Error) {
        _ = try expect(200..<300, send("PUT", key: key, body: .file(descriptor: descriptor, size: size), payloadHash: sha256, label: label), label)
    }

    /// Stores `bytes` as `key` (small objects: a test's, a probe's).
    func put(_ key: String, bytes: [UInt8], label: String) throws(S3Error) {
        _ = try expect(200..<300, send("PUT", key: key, body: .bytes(bytes), payloadHash: SHA256.hex(of: bytes), label: label), label)
    }

    /// The object `key` in a file with no name, or nil when there is none.
    func get(_ key: String, label: String) throws(S3Error) -> ContentFile? {
        let answer = try send("GET", key: key, answerBody: .file, label: label)
        if answer.status == 404 { return nil }
        _ = try expect(200..<300, answer, label)
        guard let file = answer.file else { throw S3Error.status(label, answer.status, "no body") }
        return file
    }

    /// The size of object `key`, or nil when there is none.
    func size(of key: String, label: String) throws(S3Error) -> Int? {
        let answer = try send("HEAD", key: key, label: label)
        if answer.status == 404 { return nil }
        _ = try expect(200..<300, answer, label)
        return answer.headers["content-length"].flatMap { Int($0) } ?? 0
    }

    /// Removes object `key` (nothing when there is none).
    func delete(_ key: String, label: String) throws(S3Error) {
        let answer = try send("DELETE", key: key, label: label)
        guard answer.status == 404 else { _ = try expect(200..<300, answer, label); return }
    }

    /// Every object whose key starts with `prefix`, in key order (ListObjectsV2, page by page).
    func list(prefix: String, label: String) throws(S3Error) -> [Listed] {
        var listed: [Listed] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix), ("max-keys", "1000")]
            if let token { query.append(("continuation-token", token)) }
            let answer = try expect(200..<300, send("GET", key: nil, query: query, answerBody: .memory(limit: 4 << 20), label: label), label)
            let document = String(decoding: answer.body, as: UTF8.self)
            for block in S3XML.blocks(of: "Contents", in: document) {
                guard let key = S3XML.value(of: "Key", in: block) else { continue }
                listed.append(Listed(key: key, size: S3XML.value(of: "Size", in: block).flatMap { Int($0) } ?? 0,
                                     lastModified: S3XML.value(of: "LastModified", in: block).flatMap(Self.parseTime)))
            }
            token = S3XML.value(of: "IsTruncated", in: document) == "true" ? S3XML.value(of: "NextContinuationToken", in: document) : nil
        } while token != nil
        return listed
    }

    /// Copies object `source` to `key` inside the store (one request; objects up to 5 GB).
    func copy(_ source: String, to key: String, label: String) throws(S3Error) {
        let answer = try expect(200..<300, send("PUT", key: key, headers: ["x-amz-copy-source": copySource(source)], label: label), label)
        // A copy can fail after its 200 has been sent: the error is then the body.
        if S3XML.value(of: "Code", in: String(decoding: answer.body, as: UTF8.self)) != nil {
            throw S3Error.status(label, 500, S3XML.value(of: "Code", in: String(decoding: answer.body, as: UTF8.self)))
        }
    }

    /// Joins objects `sources` in order into `key` without moving their bytes through this
    /// process: a multipart upload whose parts are copies (every part but the last at least
    /// 5 MiB, as upload chunks are). Aborted on any failure, so nothing half-joined remains.
    func join(_ sources: [String], into key: String, label: String) throws(S3Error) {
        if sources.count == 1 { return try copy(sources[0], to: key, label: label) }
        let created = try expect(200..<300, send("POST", key: key, query: [("uploads", "")], label: label), label)
        guard let uploadID = S3XML.value(of: "UploadId", in: String(decoding: created.body, as: UTF8.self)) else {
            throw S3Error.status(label, created.status, "no UploadId")
        }
        do throws(S3Error) {
            var parts = ""
            for (index, source) in sources.enumerated() {
                let answer = try expect(200..<300, send("PUT", key: key, query: [("partNumber", String(index + 1)), ("uploadId", uploadID)],
                                                        headers: ["x-amz-copy-source": copySource(source)], label: label), label)
                guard let etag = S3XML.value(of: "ETag", in: String(decoding: answer.body, as: UTF8.self)) else {
                    throw S3Error.status(label, answer.status, "no ETag for a copied part")
                }
                parts += "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(S3XML.escape(etag))</ETag></Part>"
            }
            let body = Array("<CompleteMultipartUpload>\(parts)</CompleteMultipartUpload>".utf8)
            let completed = try expect(200..<300, send("POST", key: key, query: [("uploadId", uploadID)], body: .bytes(body),
                                                      payloadHash: SHA256.hex(of: body), label: label), label)
            if let code = S3XML.value(of: "Code", in: String(decoding: completed.body, as: UTF8.self)) {
                throw S3Error.status(label, 500, code)
            }
        } catch {
            _ = try? send("DELETE", key: key, query: [("uploadId", uploadID)], label: label)
            throw error
        }
    }

    /// Creates the bucket (answers from one that exists already count as success).
    func create(label: String) throws(S3Error) {
        let answer = try send("PUT", key: nil, label: label)
        if answer.status == 409 { return }
        _ = try expect(200..<300, answer, label)
    }

    // MARK: - Requests

    private func copySource(_ key: String) -> String {
        location.path(of: key)
    }

    private func expect(_ statuses: Range<Int>, _ answer: ObjectStorageAnswer, _ label: String) throws(S3Error) -> ObjectStorageAnswer {
        guard statuses.contains(answer.status) else {
            answer.file?.close()
            throw S3Error.status(label, answer.status, S3XML.value(of: "Code", in: String(decoding: answer.body, as: UTF8.self)))
        }
        return answer
    }

    private func send(_ method: String, key: String?, query: [(String, String)] = [], headers extra: [String: String] = [:],
                      body: ObjectStorageRequest.Body = .empty, payloadHash: String = S3Bucket.emptyPayloadHash,
                      answerBody: ObjectStorageRequest.AnswerBody = .memory(limit: 1 << 20), label: String) throws(S3Error) -> ObjectStorageAnswer {
        let path = location.path(of: key)
        let date = now()
        var headers = extra
        headers["x-amz-content-sha256"] = payloadHash
        headers["x-amz-date"] = SigV4Signer.timestamp(date)
        let signed = signer.sign(method: method, path: path, query: query,
                                 headers: headers.map { ($0.key, $0.value) } + [("host", location.hostHeader)],
                                 payloadHash: payloadHash, date: date)
        headers["Authorization"] = signed.authorization
        var text = location.endpoint.absoluteString + path
        if !query.isEmpty { text += "?" + SigV4Signer.canonicalQuery(query) }
        guard let url = URL(string: text) else { throw S3Error.status(label, 0, "unusable key") }
        do {
            let answer = try client.send(ObjectStorageRequest(method: method, url: url, headers: headers, body: body,
                                                              answerBody: answerBody, label: label))
            return answer
        } catch {
            throw S3Error.exchange(error)
        }
    }

    static func parseTime(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

/// Why an S3 request failed: the exchange itself, or the store's answer (its status and S3
/// error code, never a signature or key).
enum S3Error: Error, Sendable, CustomStringConvertible {
    case exchange(ObjectStorageError)
    case status(String, Int, String?)

    /// True when the store is down, overloaded or slow (a retry later may succeed): the
    /// content endpoints answer 503 with `Retry-After`.
    var isUnavailable: Bool {
        switch self {
        case .exchange(let error):
            if case .local = error { return false }
            return true
        case .status(_, let status, _):
            return status >= 500 || status == 429
        }
    }

    var description: String {
        switch self {
        case .exchange(let error): error.description
        case .status(let what, let status, let code):
            "the object store answered HTTP \(status)" + (code.map { " \($0)" } ?? "") + (what.isEmpty ? "" : " (\(what))")
        }
    }
}
