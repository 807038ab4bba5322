import NotesCore

extension BackupCommand {
    /// The bucket the database records its contents in (`migrate-content`), if any.
    static func recordedBucket(_ database: DatabaseQueue) throws -> S3Location? {
        guard case .s3(let location) = try database.read({ db in try ContentStoreRecord.read(db) })?.current else { return nil }
        return location
    }

    /// The SQLite database alone, for a server whose contents are in `bucket`: SQLite's online
    /// backup, checked. The bucket is copied after it by the object store's own tools (README.md
    /// "Operations: backup and restore"): contents never change, so every object the copy names
    /// is in the bucket then, unless a purge removed it in between.
    func backUpDatabaseOnly(_ database: DatabaseQueue, path databasePath: String, bucket: S3Location) throws {
        try database.read { db in try db.backup(to: destination) }
        let check = try Database(path: destination).integrityCheck()
        guard check == "ok" else { throw AdminError("the backup failed its integrity check: \(check)") }
        printLine("Backed up \(databasePath) to \(destination). Its attachment contents are in \(bucket.storeURL), which this backup does not copy: copy that bucket now with the object store's own tools.")
    }
}
