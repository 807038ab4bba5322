import Foundation
import NotesCore

extension S3BlobStore {
    /// Removes content objects no row names that were stored more than `age` seconds ago (by
    /// the store's clock): a content object is written before its row commits, so a crash in
    /// between leaves one. A younger object may be the bytes of a row about to commit, and one
    /// whose upload is still open may be what that upload records when it completes; both stay.
    /// - Returns: how many went.
    func removeUnreferencedContents(olderThanSeconds age: Int, isReferenced: (Int64, String) throws -> Bool) throws -> Int {
        let cutoff = bucket.now().addingTimeInterval(-TimeInterval(age))
        let root = bucket.location.key("")
        let objects = try Self.mapping("list the store's contents") { () throws(S3Error) in
            try bucket.list(prefix: root, label: "list the store")
        }
        var removed = 0
        for object in objects where (object.lastModified ?? .distantFuture) < cutoff {
            let parts = object.key.dropFirst(root.count).split(separator: "/")
            guard parts.count == 3, parts[1] != "uploads", let userID = Int64(parts[0]), parts[2].hasPrefix(parts[1]) else { continue }
            let hash = String(parts[2])
            guard ContentHash.isValid(hash), try !isReferenced(userID, hash) else { continue }
            try Self.mapping("remove an unreferenced content") { () throws(S3Error) in
                try bucket.delete(object.key, label: "remove an unreferenced content")
            }
            removed += 1
        }
        return removed
    }
}
