import NotesCore

extension SpaceStore {
    /// Removes a space in the trash for good, its owner asking: its notes, revisions, search
    /// documents, publications, members and holder row, and then every stored content and open
    /// upload of it in `blobs` (docs/architecture.md §6.5). A live space is never purged: it
    /// goes to the trash first (`delete`), where the owner can still restore it.
    ///
    /// The rows go in one transaction, the files after it committed while still holding the
    /// writer, inside `withRemovalsAllowed`, as the content purge removes them: a row never names
    /// a missing file, and a backup copying the store is never missing one it names.
    /// - Throws: `SpaceError.notFound` unless `account` owns the space; `.notDeleted` for a live
    ///   one; an unavailable `BlobStoreError` (503, try again) while a backup copies the content store.
    func purge(account: Int64, space spaceID: Int64, blobs: any BlobStore) throws {
        _ = try database.read { db in try Self.trashed(spaceID, ownedBy: account, in: db) }
        try NoteStore.takeSearchQueue(of: spaceID, in: database)
        let purged: Void? = try blobs.withRemovalsAllowed {
            try database.withWriter { db in
                let doomed = try db.transaction { () throws -> (contents: [String], uploads: [String]) in
                    try Self.trashed(spaceID, ownedBy: account, in: db)
                    let contents = try db.query("SELECT hash FROM contents WHERE user_id = ?", [spaceID]) { $0.string(0) }
                    let uploads = try db.query("SELECT hash FROM uploads WHERE user_id = ?", [spaceID]) { $0.string(0) }
                    try NoteStore.deleteAll(of: spaceID, in: db)
                    // Its spaces row, members and publications go with the holder (ON DELETE CASCADE).
                    try db.run("DELETE FROM users WHERE id = ? AND kind = 'space'", spaceID)
                    return (contents, uploads)
                }
                for hash in doomed.contents { try blobs.removeContent(userID: spaceID, hash: hash) }
                for hash in doomed.uploads { try blobs.removeUpload(userID: spaceID, hash: hash) }
            }
        }
        guard purged != nil else {
            throw BlobStoreError(operation: "purge a space while a backup copies the content store", code: BlobStoreError.unavailableCode)
        }
        notifier.changed(user: spaceID)
    }

    /// Checks that `spaceID` is a shared space `account` owns and is in the trash.
    private static func trashed(_ spaceID: Int64, ownedBy account: Int64, in db: some SQLConnection) throws {
        guard let deleted = try db.first("SELECT deleted_at IS NOT NULL FROM spaces WHERE id = ? AND owner_id = ? AND personal = 0",
                                         [spaceID, account], row: { $0.bool(0) })
        else { throw SpaceError.notFound }
        guard deleted else { throw SpaceError.notDeleted }
    }
}
