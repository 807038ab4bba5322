import Foundation
import NotesCommandLine
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `notes-server backup FILE`: a consistent copy of the live database and its attachments.
///
/// On PostgreSQL (a `postgres://` `--db`) that is `pg_dump --format=custom` into FILE, the
/// attachments being rows like the rest (`BackupCommand+PostgreSQL.swift`). On SQLite, what
/// follows: SQLite's online backup, and the content store's files beside it.
///
/// Consistency: content files are immutable and named by hash, and a content's row is written
/// only after its file is in place and removed before its file is. The backup holds the content
/// store's lock shared (`FileBlobStore.withRemovalsHeld`) while it copies the database and then
/// every content the copy's `contents` table names into `FILE.content`; a purge removes content
/// only under that lock exclusively (and skips a round while a backup runs). So every content
/// the backed-up database refers to is copied, and content stored after the database copy is
/// simply not part of the backup, as its rows are not.
struct BackupCommand: AdminCommand {
    static let spec = CommandSpec(
        "backup", abstract: "Copy the live database and its attachments to a file",
        discussion: """
            Writes a consistent copy of the database to FILE while the server keeps running. FILE must
            not exist yet; it is made readable by its owner only (0600), as it holds password and token
            hashes. SQLite: the attachment contents the copy refers to go to FILE.content; restore by
            stopping the server and using FILE as --db (FILE.content beside it goes with it).
            PostgreSQL (--db postgres://...): runs pg_dump --format=custom into FILE, attachments
            included (pg_dump must be as new as the server; the password goes to it through PGPASSWORD,
            never its arguments); restore with pg_restore --no-owner --dbname=URL FILE into an empty
            database.
            With an S3 content store (the server's --content-store, or a bucket migrate-content recorded)
            only the database is written; copy the bucket with the object store's own tools after it.
            """,
        options: [.value("pg-dump", .file, placeholder: "PATH", help: "The pg_dump to run for a PostgreSQL --db (default: pg_dump on PATH)"),
                  .value("content-store", .url, placeholder: "URL",
                         help: "The server's --content-store: with an s3:// bucket only the database is backed up (the bucket is copied by its own tools)")],
        positionals: [PositionalSpec("FILE", .file, help: "The backup to write (must not exist)")])

    let location: DatabaseLocation
    let destination: String
    let pgDump: String?
    /// The bucket `--content-store` names, if any.
    let bucket: S3Location?

    init(_ parsed: ParsedCommand) throws {
        location = try DatabaseLocation(parsed.databasePath)
        destination = parsed.argument("FILE")
        pgDump = parsed.value("pg-dump")
        do {
            // Only the bucket's name: the backup never reads it, so it needs no endpoint or credentials.
            bucket = try parsed.value("content-store").map { try S3Location(store: $0, endpoint: nil, region: nil) }
        } catch let error as S3ConfigurationError {
            throw UsageError(error.description)
        }
    }

    func run() throws {
        switch location {
        case .postgres(let url):
            try PostgresBackup(url: url, destination: destination, pgDump: pgDump).run()
        case .sqlite(let path):
            try backUpSQLite(path)
        }
    }

    private func backUpSQLite(_ databasePath: String) throws {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw AdminError("\(destination) already exists; choose a new file")
        }
        guard !FileManager.default.fileExists(atPath: destination + ".content") else {
            throw AdminError("\(destination).content already exists; choose a new file")
        }
        guard case .sqlite(let database) = try openServerDatabase(databasePath) else {
            throw AdminError("\(databasePath) is not a SQLite database")
        }
        if let bucket = try bucket ?? Self.recordedBucket(database) {
            return try backUpDatabaseOnly(database, path: databasePath, bucket: bucket)
        }
        let source = FileBlobStore(databasePath: databasePath)
        let target = FileBlobStore(databasePath: destination)
        let copied = try source.withRemovalsHeld { () throws -> Int in
            try database.read { db in try db.backup(to: destination) }
            let backup = try Database(path: destination)
            let contents = try backup.query("SELECT user_id, hash FROM contents") { (userID: $0.int64(0), hash: $0.string(1)) }
            try backup.close()
            for content in contents {
                try Self.copy(source.contentPath(userID: content.userID, hash: content.hash),
                              to: target.contentPath(userID: content.userID, hash: content.hash), scratch: target.root + "/tmp")
            }
            return contents.count
        }
        let check = try Database(path: destination).integrityCheck()
        guard check == "ok" else { throw AdminError("the backup failed its integrity check: \(check)") }
        printLine("Backed up \(databasePath) to \(destination)" + (copied > 0 ? " with \(copied) attachment content\(copied == 1 ? "" : "s") in \(destination).content." : "."))
    }

    /// Copies one content file durably: a hard link where both are on one file system (the file
    /// is never changed in place), else a copy written under `scratch` and moved into place.
    private static func copy(_ from: String, to destination: String, scratch: String) throws {
        try FileBlobStore.makeFolder((destination as NSString).deletingLastPathComponent)
        if link(from, destination) == 0 { return }
        guard let input = FileHandle(forReadingAtPath: from) else {
            throw AdminError("the attachment content \(from) is missing; the backup is incomplete")
        }
        defer { try? input.close() }
        let file = try TemporaryFile(in: scratch)
        while let data = try input.read(upToCount: 1 << 20), !data.isEmpty {
            guard data.withUnsafeBytes({ file.write($0) }) else {
                throw AdminError("could not write \(destination) (errno \(errno))")
            }
        }
        try file.place(at: destination)
    }
}
