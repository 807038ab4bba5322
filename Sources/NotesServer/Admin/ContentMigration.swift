import Foundation
import NotesCore

/// One pass of `migrate-content`: every content the database names, copied from one store to
/// another while servers run, each checked against its SHA-256.
///
/// A content the target already holds (an earlier, interrupted run) is read back from the
/// target and hashed, and copied again only when it does not hash to its name. Any other is
/// read from the source into the target's own content sink, whose `seal` checks its length and
/// SHA-256 before it is kept (an S3 target checks the signed SHA-256 of the body once more), so
/// nothing unverified lands. A content purged while the pass runs is counted as gone; a copy
/// of it left in the target is no row's, and the target's purge removes it after its grace
/// period (docs/architecture.md §6.3).
struct ContentMigration {
    let database: ServerDatabase
    let source: any BlobStore
    let target: any BlobStore
    /// Progress lines, at most one a second.
    let progress: (String) -> Void

    /// What a pass did.
    struct Tally {
        /// Copied from the source and checked.
        var copied = 0
        /// Already in the target, read back and hashed.
        var verified = 0
        /// Purged while the pass ran.
        var gone = 0
        /// The contents done (copied or verified), so a later pass of the same run skips them.
        var done = Set<String>()
    }

    /// Contents read from the database a page at a time, so a store of millions takes bounded memory.
    static let pageSize = 500

    /// Copies every content the target lacks (those in `skipping` are known to be there).
    /// - Throws: `AdminError` for a content whose row exists but whose bytes are missing from
    ///   the source or do not hash to its name; a store's or the database's failure.
    func run(skipping: Set<String> = []) throws -> Tally {
        var tally = Tally()
        tally.done = skipping
        var after: (userID: Int64, hash: String) = (Int64.min, "")
        var lastReport = Date()
        while true {
            let page = try database.read { db in
                try db.query("""
                    SELECT user_id, hash, size FROM contents WHERE user_id > ? OR (user_id = ? AND hash > ?)
                    ORDER BY user_id, hash LIMIT \(Self.pageSize)
                    """, [after.userID, after.userID, after.hash]) { (userID: $0.int64(0), hash: $0.string(1), size: $0.int(2)) }
            }
            guard let last = page.last else { return tally }
            after = (last.userID, last.hash)
            for content in page where !tally.done.contains(Self.name(content.userID, content.hash)) {
                try move(userID: content.userID, hash: content.hash, size: content.size, into: &tally)
                if Date().timeIntervalSince(lastReport) >= 1 || tally.copied + tally.verified == 1 {
                    progress("copied \(tally.copied), found verified \(tally.verified) so far")
                    lastReport = Date()
                }
            }
        }
    }

    static func name(_ userID: Int64, _ hash: String) -> String { "\(userID)/\(hash)" }

    private func move(userID: Int64, hash: String, size: Int, into tally: inout Tally) throws {
        guard let digest = Hex.decode(hash) else { throw AdminError("the contents table holds \(hash), which is not a SHA-256") }
        if let present = try target.openContent(userID: userID, hash: hash) {
            defer { present.close() }
            var hasher = SHA256Hasher()
            if try S3BlobStore.hash(present, into: &hasher) == size, ConstantTime.equal(hasher.finalize(), digest) {
                tally.verified += 1
                tally.done.insert(Self.name(userID, hash))
                return
            }
        }
        guard let file = try source.openContent(userID: userID, hash: hash) else {
            guard try database.read({ db in try ContentStore.size(db, userID: userID, hash: hash) }) == nil else {
                throw AdminError("content \(hash) of user \(userID) is in the database but missing from the source store")
            }
            tally.gone += 1
            return
        }
        defer { file.close() }
        let sink = try target.makeContentSink(userID: userID, hash: hash)
        try Self.pour(file, into: sink)
        guard try sink.seal(length: size, digest: digest) else {
            throw AdminError("content \(hash) of user \(userID) in the source store is not the \(size) bytes that hash to its name; "
                             + "it was not copied")
        }
        try sink.keep()
        tally.copied += 1
        tally.done.insert(Self.name(userID, hash))
    }

    /// Writes the whole of `file` into `sink`.
    private static func pour(_ file: ContentFile, into sink: any ChunkSink) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = 0
        while true {
            let got = buffer.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress!, $0.count, off_t(offset)) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw BlobStoreError(operation: "read a content from the source store", code: errno) }
            if got == 0 { return }
            guard buffer.withUnsafeBytes({ sink.write(UnsafeRawBufferPointer(rebasing: $0[..<got])) }) else {
                sink.discard()
                throw BlobStoreError(operation: "write a content into the target store", code: errno)
            }
            offset += got
        }
    }
}
