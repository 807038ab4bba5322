import Foundation
import NotesCommandLine
import NotesCore

/// `notes-server migrate-content --to s3://BUCKET/PREFIX [--from database]`: moves every
/// attachment content to another store while the servers keep running, and switches them to it
/// (docs/architecture.md §6.3, README.md "Operations: moving attachments to S3").
///
/// 1. Copies every content the database names into the target, each checked against its
///    SHA-256 (`ContentMigration`); the servers go on using the source meanwhile.
/// 2. Records the target as the store, the source as the previous one (`ContentStoreRecord`):
///    within seconds every server writes to the target and reads from it, falling back to the
///    source.
/// 3. Waits `--settle` seconds, so every server has switched and every request begun on the
///    source has ended, then copies what was stored in the source meanwhile.
/// 4. Records the target alone: the source is no longer read; it is left as it is.
///
/// Interrupted anywhere, the same command carries on: contents already in the target are read
/// back and hashed instead of copied, and a recorded switch goes on from step 3.
struct MigrateContentCommand: AdminCommand {
    static let spec = CommandSpec(
        "migrate-content", abstract: "Move attachment contents to another store while the servers run",
        discussion: """
            Copies every attachment content the database names from the store it is in now (--from,
            default: the store the database records, else the one beside the database) to --to, checking
            each against its SHA-256, then records --to in the database: every running server switches to
            it within a few seconds (reading from the old store too until the migration ends), and every
            server started later uses it whatever its --content-store says. Contents stored meanwhile are
            copied once the servers have switched. Run it again after an interruption: what was copied is
            verified, not copied again. Every server needs credentials for the bucket (AWS_ACCESS_KEY_ID
            and AWS_SECRET_ACCESS_KEY, or --s3-credentials-file) before it starts. The old store is left
            as it is; remove it once satisfied.
            """,
        usage: ["--to s3://BUCKET/PREFIX [--from database] [--s3-endpoint URL]"],
        options: [
            .value("to", .url, placeholder: "STORE", help: "Where the contents go: s3://BUCKET/PREFIX, or database (beside the database)"),
            .value("from", .url, placeholder: "STORE",
                   help: "Where they are now: s3://BUCKET/PREFIX or database (default: the store the database records, else database)"),
            .value("settle", .int, placeholder: "SECONDS",
                   help: "How long servers get to switch and finish requests begun on the old store (default 30, at least 3)"),
        ] + ContentStoreChoice.options(storeOption: "to").dropFirst())

    let databasePath: String
    let target: ContentStoreAddress
    let source: ContentStoreAddress?
    let credentials: () throws -> S3Credentials
    let settleSeconds: Int

    init(_ parsed: ParsedCommand) throws {
        // Every option is read before any is judged, so a mistake in one never hides another.
        databasePath = parsed.databasePath
        let to = parsed.value("to"), from = parsed.value("from")
        let endpoint = parsed.value("s3-endpoint"), region = parsed.value("s3-region")
        let file = parsed.value("s3-credentials-file")
        settleSeconds = parsed.int("settle") ?? 30
        guard let to else { throw UsageError("migrate-content needs --to s3://BUCKET/PREFIX (or --to database)") }
        do {
            target = try ContentStoreAddress(store: to, endpoint: endpoint, region: region)
            source = try from.map { try ContentStoreAddress(store: $0, endpoint: endpoint, region: region) }
        } catch let error as S3ConfigurationError {
            throw UsageError(error.description)
        }
        credentials = { try S3Credentials.load(environment: ProcessInfo.processInfo.environment, file: file) }
        if case .s3 = target {
            // Before anything is read: a missing credential is a usage error, named and never shown.
            do { _ = try credentials() } catch let error as S3ConfigurationError { throw UsageError(error.description) }
        }
        guard settleSeconds >= ServerRunner.contentStoreRefreshSeconds + 1 else {
            throw UsageError("--settle must be at least \(ServerRunner.contentStoreRefreshSeconds + 1) seconds: servers read the switch every \(ServerRunner.contentStoreRefreshSeconds)")
        }
    }

    func run() throws {
        let database = try openServerDatabase(databasePath)
        defer { try? database.close() }
        let recorded = try database.read { db in try ContentStoreRecord.read(db) }
        let started = Date()
        var skipping = Set<String>()
        let from: ContentStoreAddress
        if let recorded, recorded.current == target, let previous = recorded.previous {
            // A switch recorded by a run that did not finish: carry on after it.
            from = previous
            printLine("Carrying on with the migration from \(from) to \(target): the servers already use \(target).")
        } else {
            let now = recorded?.current ?? .database
            from = source ?? now
            guard from == now else {
                throw AdminError("the contents are in \(now), not \(from); run migrate-content with --from \(now.columns.store) or without --from")
            }
            guard from != target else {
                printLine("The contents are in \(target) already; nothing to move.")
                return
            }
            let first = try migration(database, from: from).run()
            skipping = first.done
            printLine("Copied \(first.copied) content\(first.copied == 1 ? "" : "s") to \(target) (\(first.verified) already there, read back and verified)"
                      + "; switching the servers to it.")
            try record(ContentStoreRecord(current: target, previous: from), in: database)
        }
        printLine("Waiting \(settleSeconds) s for every server to switch and finish what it began on \(from).")
        Thread.sleep(forTimeInterval: TimeInterval(settleSeconds))
        let last = try migration(database, from: from).run(skipping: skipping)
        try record(ContentStoreRecord(current: target, previous: nil), in: database)
        let total = skipping.count + last.copied + last.verified
        printLine("Moved \(total) content\(total == 1 ? "" : "s") to \(target) in \(Int(Date().timeIntervalSince(started))) s, each checked against its SHA-256 "
                  + "(\(last.copied) stored meanwhile, \(last.verified) found there and verified); the servers use it alone now. "
                  + "\(from) was left as it is.")
    }

    private func migration(_ database: ServerDatabase, from: ContentStoreAddress) throws -> ContentMigration {
        ContentMigration(database: database, source: try store(at: from, database), target: try store(at: target, database),
                         progress: { printLine($0) })
    }

    private func record(_ record: ContentStoreRecord, in database: ServerDatabase) throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try database.write { db in try record.write(db, at: now) }
    }

    /// The store at `address`, as this command reaches it.
    private func store(at address: ContentStoreAddress, _ database: ServerDatabase) throws -> any BlobStore {
        switch (address, database) {
        case (.s3(let location), _):
            S3BlobStore(bucket: ContentStoreChoice.bucket(location, try credentials()))
        case (.database, .sqlite):
            FileBlobStore(databasePath: databasePath)
        case (.database, .postgres(let pool)):
            PostgresBlobStore(pool: pool)
        }
    }
}
