import NotesCore

/// Why an upload was given up for this sync (the file is named in the report; the rest syncs).
struct UploadSkip: Sendable {
    var reason: SyncReport.Skipped.Reason
    var detail: String
}

/// Uploads attachment contents in verified chunks, sending only the chunks the server has not
/// stored yet (`received`), so a sync killed mid-upload resumes where it was.
///
/// A value with nothing but Sendable parts, so a sync runs several uploads at once
/// (`SyncEngine.uploadContents`).
struct ContentUploader: Sendable {
    /// Contents uploaded at once: enough to keep both cores busy on small files, few enough that
    /// memory stays within a few chunks.
    static let inFlight = 4

    var remote: any SyncRemote
    var files: SafeFiles
    var limits: AttachmentLimits
    var quotaBytes: Int?

    /// Uploads the content `hash`, read from `disk` (which must still match `stat`).
    /// - Returns: `nil` when the server holds the content now, else why it was given up.
    func upload(hash: String, from disk: String, stat: FileStat) async throws -> UploadSkip? {
        let upload: UploadState
        do {
            upload = try await remote.openUpload(hash: hash, size: stat.size)
        } catch ClientError.status(let error) where error.status == 413 {
            return UploadSkip(reason: .tooLarge, detail: "\(stat.size) bytes, over the server's attachment limit of "
                              + "\(limits.maxBytes) bytes (\(error.message))")
        } catch ClientError.status(let error) where error.status == 507 {
            let quota = quotaBytes.map { " of \($0) bytes" } ?? ""
            return UploadSkip(reason: .quotaExceeded, detail: "\(stat.size) bytes would exceed the account's storage quota\(quota) (\(error.message))")
        }
        let received = Set(upload.received)
        for index in 0..<upload.chunkCount where !received.contains(index) {
            let offset = Int64(index) * Int64(upload.chunkSize)
            let length = Int(min(Int64(upload.chunkSize), stat.size - offset))
            let bytes: [UInt8]?
            do {
                bytes = try files.readRange(disk, offset: offset, count: length, expecting: stat)
            } catch let error as SyncFileError {
                return UploadSkip(reason: .unreadable, detail: "\(error)")
            }
            guard let bytes else {
                return UploadSkip(reason: .unreadable, detail: "it changed while it was being uploaded; it is sent next sync")
            }
            try await remote.putChunk(hash: hash, index: index, bytes: bytes)
        }
        do {
            try await remote.completeUpload(hash: hash)
        } catch ClientError.status(let error) where error.status == 422 {
            return UploadSkip(reason: .unreadable, detail: "it changed while it was being uploaded; it is sent next sync (\(error.message))")
        }
        return nil
    }
}
