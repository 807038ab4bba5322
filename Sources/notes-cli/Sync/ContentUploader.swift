import Foundation
import NotesCore

/// Why an upload was given up for this sync (the file is named in the report; the rest syncs).
struct UploadSkip: Sendable {
    var reason: SyncReport.Skipped.Reason
    var detail: String
    /// The file's bytes are no longer those the scan hashed (the server found them not to hash
    /// to the scan's hash, or the file's metadata changed).
    var contentChanged = false
}

/// Uploads attachment contents: a small one whole in one request, a larger one in verified
/// chunks, sending only the chunks the server has not stored yet (`received`), so a sync killed
/// mid-upload resumes where it was.
///
/// A value with nothing but Sendable parts, so a sync runs several uploads at once
/// (`PushPhase.uploadContents`).
struct ContentUploader: Sendable {
    /// Contents uploaded at once: enough to keep both cores busy on small files, few enough that
    /// memory stays within a few chunks.
    static let inFlight = 4

    var remote: any SyncRemote
    var files: SafeFiles
    var limits: AttachmentLimits
    var quotaBytes: Int?
    /// The bodies of batches, reused: as many as can be in flight at once.
    let buffers = BodyBuffers(limit: inFlight)

    /// Uploads `content`, read from its file (which must still match the scan's metadata).
    /// - Returns: `nil` when the server holds the content now, else why it was given up.
    ///
    /// A content no larger than a chunk goes in one request (`PUT /v1/content/{hash}`); a
    /// larger one, or any against a server from before that endpoint, through the chunked upload.
    func upload(_ content: Pending) async throws -> UploadSkip? {
        let (hash, disk, stat) = (content.hash, content.disk, content.stat)
        if stat.size <= Int64(limits.chunkBytes) {
            do {
                let bytes: [UInt8]?
                do {
                    bytes = try files.readRange(disk, offset: 0, count: Int(stat.size), expecting: stat)
                } catch let error as SyncFileError {
                    return UploadSkip(reason: .unreadable, detail: "\(error)")
                }
                guard let bytes else { return changedSkip(nil) }
                if try await remote.putContent(hash: hash, bytes: bytes) { return nil }
            } catch ClientError.status(let error) {
                guard let skip = refusal(error, size: stat.size) else { throw ClientError.status(error) }
                return skip
            }
        }
        return try await uploadInChunks(content)
    }

    /// A content waiting to be uploaded: its hash, where it is, and the metadata it was hashed with.
    struct Pending: Sendable {
        var hash: String
        var disk: String
        var stat: FileStat
        /// Each chunk's digest, if the scan took them (else each is hashed as it is sent).
        var chunks: ChunkDigests? = nil
    }

    /// Groups `pending` into the requests that send them: contents small enough share batches
    /// of at most `batchBytes` (framing included), in the order given; each other content goes
    /// alone. Without `batchBytes` (a server from before `POST /v1/content`) every one is alone.
    static func requests(for pending: [Pending], batchBytes: Int?) -> [[Pending]] {
        guard let batchBytes else { return pending.map { [$0] } }
        var requests: [[Pending]] = []
        var batch: [Pending] = []
        var batchSize = 0
        for content in pending {
            let framed = ContentBatch.maxHeaderBytes + Int(content.stat.size)
            guard framed <= batchBytes else {
                requests.append([content])
                continue
            }
            if batchSize + framed > batchBytes || batch.count == ContentBatch.maxContents {
                requests.append(batch)
                batch = []
                batchSize = 0
            }
            batch.append(content)
            batchSize += framed
        }
        if !batch.isEmpty { requests.append(batch) }
        return requests
    }

    /// The largest body one of `requests` sends: a chunk when a content goes alone in chunks,
    /// else a batch (or a content sent whole, no larger than a chunk).
    static func largestBody(of requests: some Collection<[Pending]>, limits: AttachmentLimits) -> Int {
        requests.reduce(0) { largest, request in
            let bytes = request.reduce(0) { $0 + ContentBatch.maxHeaderBytes + Int($1.stat.size) }
            return max(largest, min(bytes, limits.chunkBytes))
        }
    }

    /// Uploads several small contents in one request (`POST /v1/content`).
    /// - Returns: for each content, nil when the server holds it now, else why it was given up.
    ///
    /// A file that cannot be read, or changed since the scan, is skipped and the rest sent. When
    /// the server has no batch endpoint, or refuses the batch as a whole (over the quota: some
    /// of its contents may still fit), each content is sent alone, so each gets its own answer.
    func upload(batch: [Pending]) async throws -> [(hash: String, skip: UploadSkip?)] {
        guard batch.count > 1 else { return try await alone(batch, skipped: [:]) }
        var outcomes: [String: UploadSkip] = [:]
        var sent: [String] = []
        let capacity = batch.reduce(0) { $0 + ContentBatch.maxHeaderBytes + Int($1.stat.size) }
        let body = try buffers.body(capacity: capacity) { buffer in
            var used = 0
            for content in batch {
                // Each file read straight into the body after its frame's header; a file that
                // cannot be read, or changed since the scan, leaves no frame.
                let header = ContentBatch.header(hash: content.hash, size: Int(content.stat.size))
                let frame = UnsafeMutableRawBufferPointer(rebasing: buffer[used..<(used + header.count + Int(content.stat.size))])
                frame.copyBytes(from: header)
                let read: Bool
                do {
                    read = try files.readRange(content.disk, offset: 0, into: UnsafeMutableRawBufferPointer(rebasing: frame[header.count...]),
                                               expecting: content.stat)
                } catch let error as SyncFileError {
                    outcomes[content.hash] = UploadSkip(reason: .unreadable, detail: "\(error)")
                    continue
                }
                guard read else {
                    outcomes[content.hash] = changedSkip(nil)
                    continue
                }
                used += frame.count
                sent.append(content.hash)
            }
            return used
        }
        let results: [ContentBatchResult]?
        do {
            results = sent.isEmpty ? [] : try await remote.putContents(body ?? Data(), hashes: sent)
        } catch ClientError.status(let error) where [413, 507].contains(error.status) {
            results = nil
        }
        guard let results else { return try await alone(batch, skipped: outcomes) }
        for result in results where result.status == .contentMismatch {
            outcomes[result.hash] = changedSkip("its bytes do not hash to \(result.hash)")
        }
        return batch.map { ($0.hash, outcomes[$0.hash]) }
    }

    /// Uploads each content of `batch` in a request of its own, but those already `skipped`.
    private func alone(_ batch: [Pending], skipped: [String: UploadSkip]) async throws -> [(hash: String, skip: UploadSkip?)] {
        var outcomes: [(hash: String, skip: UploadSkip?)] = []
        for content in batch {
            if let skip = skipped[content.hash] {
                outcomes.append((content.hash, skip))
            } else {
                outcomes.append((content.hash, try await upload(content)))
            }
        }
        return outcomes
    }

    /// Chunks of one content sent at once: the client reads one while the server writes and
    /// hashes the other, so both sides work at once (two cores). A chunk is read from the file
    /// as it is sent (`FileBody`), so each in flight holds only libcurl's send buffer.
    static let chunksInFlight = 2

    /// The resumable upload: open, the chunks the server lacks (`chunksInFlight` at a time), complete.
    private func uploadInChunks(_ content: Pending) async throws -> UploadSkip? {
        let upload: UploadState
        do {
            upload = try await remote.openUpload(hash: content.hash, size: content.stat.size)
        } catch ClientError.status(let error) {
            guard let skip = refusal(error, size: content.stat.size) else { throw ClientError.status(error) }
            return skip
        }
        let received = Set(upload.received)
        let missing = (0..<upload.chunkCount).filter { !received.contains($0) }
        // Opened once for every chunk, and only while it still has the scan's metadata.
        let file: ReadableFile
        do {
            guard let opened = try files.openForSending(content.disk, expecting: content.stat) else { return changedSkip(nil) }
            file = opened
        } catch let error as SyncFileError {
            return UploadSkip(reason: .unreadable, detail: "\(error)")
        }
        let skip = try await withThrowingTaskGroup(of: UploadSkip?.self) { group -> UploadSkip? in
            var inFlight = 0
            for index in missing {
                if inFlight == Self.chunksInFlight {
                    if case let skip?? = try await group.next() {
                        group.cancelAll()
                        return skip
                    }
                    inFlight -= 1
                }
                group.addTask { try await sendChunk(index, of: upload, from: content, file: file) }
                inFlight += 1
            }
            for try await case let skip? in group {
                group.cancelAll()
                return skip
            }
            return nil
        }
        if let skip { return skip }
        do {
            try await remote.completeUpload(hash: content.hash)
        } catch ClientError.status(let error) where error.status == 422 {
            return changedSkip(error.message)
        }
        return nil
    }

    /// Sends chunk `index` of `upload` from `file` (`content`'s, opened with the scan's
    /// metadata), read as it goes out, with the digest the scan took or else one taken now from
    /// the file: nil once the server has it, else why the content is skipped (the file is
    /// unreadable, or changed since the scan: the server finds the chunk does not match its digest).
    private func sendChunk(_ index: Int, of upload: UploadState, from content: Pending, file: ReadableFile) async throws -> UploadSkip? {
        let offset = Int64(index) * Int64(upload.chunkSize)
        let length = min(Int64(upload.chunkSize), content.stat.size - offset)
        let scanned = content.chunks?.digest(of: index, chunkSize: upload.chunkSize)
        guard let digest = scanned ?? ChunkDigests.digest(file.descriptor, offset: offset, length: length) else {
            return changedSkip(nil)  // the file ended early: it shrank since the scan
        }
        let body = FileBody(file: file, offset: offset, length: length)
        let patience = ContinuousClock.now + Self.busyChunkPatience
        while true {
            do {
                try await remote.putChunk(hash: upload.hash, index: index, body: body, digest: digest)
                return nil
            } catch ClientError.status(let error) where error.status == 422 && error.code == "chunk_mismatch" && scanned != nil {
                // The bytes read now are not those the scan hashed: the file was rewritten in
                // place (keeping its size and modification time, or the read would have said so).
                return changedSkip(error.message)
            } catch ClientError.status(let error) where error.status == 503 && error.code == "chunk_in_progress"
                        && ContinuousClock.now < patience {
                // The transport already retried after the server's Retry-After; keep asking.
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// How long a chunk another request is still sending is waited for (`503 chunk_in_progress`):
    /// a sync run again right after one was killed mid-chunk finds the server still reading the
    /// dead request's chunk, for as long as a busy server takes to notice the connection is gone.
    static let busyChunkPatience = Duration.seconds(60)

    /// Why the server refused a content of `size` bytes for this sync, or nil when the answer is
    /// not one that skips it: 413 over the attachment limit, 507 over the quota, 422 bytes that
    /// no longer hash to what the scan saw.
    private func refusal(_ error: APIStatusError, size: Int64) -> UploadSkip? {
        switch error.status {
        case 413:
            return UploadSkip(reason: .tooLarge, detail: "\(size) bytes, over the server's attachment limit of "
                              + "\(limits.maxBytes) bytes (\(error.message))")
        case 507:
            let quota = quotaBytes.map { " of \($0) bytes" } ?? ""
            return UploadSkip(reason: .quotaExceeded, detail: "\(size) bytes would exceed the account's storage quota\(quota) (\(error.message))")
        case 422 where error.code == "content_mismatch":
            return changedSkip(error.message)
        default:
            return nil
        }
    }

    /// The file changed since the scan hashed it: it is sent next sync.
    private func changedSkip(_ serverMessage: String?) -> UploadSkip {
        UploadSkip(reason: .unreadable, detail: "it changed while it was being uploaded; it is sent next sync"
                   + (serverMessage.map { " (\($0))" } ?? ""), contentChanged: true)
    }
}
