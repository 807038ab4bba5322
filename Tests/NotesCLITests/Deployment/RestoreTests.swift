import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The backup and restore procedures of README.md "Operations: backup and restore", run end to
/// end with the real programs: a backup taken while notes are being written, restored onto fresh
/// data (SQLite with its content directory; PostgreSQL with pg_restore into an empty database, or
/// a base backup put in place of the cluster's data directory), a server started on it at the same
/// address. Every note, revision, attachment, account, session and token acknowledged before the
/// backup is there, nothing written after it ended, and a folder that synced before the backup
/// syncs after it without a full resync, its edit made since kept.
@Suite("Backup and restore")
struct RestoreTests {
    enum Procedure: String, CaseIterable, Sendable {
        /// `notes-server backup` on SQLite: the database file and its content directory.
        case sqlite
        /// `notes-server backup` on PostgreSQL (`pg_dump`), restored with `pg_restore`.
        case postgres
        /// `pg_basebackup` of the whole cluster, restored in place of the cluster's data.
        case postgresBaseBackup
    }

    @Test("a backup taken under write load restores: data, sessions and tokens are there, and a synced folder carries on",
          arguments: Procedure.allCases)
    func backupRestoresUnderLoad(_ procedure: Procedure) async throws {
        if procedure != .sqlite && !TestPostgresCluster.shouldRun {
            try Test.cancel(Comment(rawValue: TestPostgresCluster.skipReason))
        }
        let installation = try await Installation.make(procedure)
        let folders = [try TemporaryDirectory("notes-home"), try TemporaryDirectory("notes-sync"), try TemporaryDirectory("notes-backup")]
        defer { for folder in folders { folder.remove() } }
        do {
            try await run(installation, home: folders[0], work: folders[1], backups: folders[2])
        } catch {
            await installation.remove()
            throw error
        }
        await installation.remove()
    }

    private func run(_ installation: Installation, home: TemporaryDirectory, work: TemporaryDirectory,
                     backups: TemporaryDirectory) async throws {
        let first = try await TestServer(database: installation.original.location)
        let before: Acknowledged
        do {
            let live = LiveServer(server: first, home: home, work: work)
            before = try await prepare(live)
            // Writes go on while the backup runs; the backup holds what was acknowledged before it began.
            let load = WriteLoad(server: first)
            let writing = Task { await load.run() }
            try await Task.sleep(for: .milliseconds(300))
            let acknowledgedBeforeBackup = await load.acknowledged
            let backup = try await installation.backUp(first, into: backups)
            await load.stop()
            let loadWrites = await writing.value
            #expect(loadWrites.count > acknowledgedBeforeBackup.count, "notes were being written while the backup ran")
            // A note written after the backup ended: the restored server must not have it.
            let api = try await TestAPIClient(first).signedIn(TestAccount.username, password: TestAccount.password)
            try await api.create(Self.writtenAfterBackup, "# After\n")
            // An edit made after the backup, not yet synced: it must survive the restore.
            try Data("# One\n\nedited after the backup\n".utf8).write(to: URL(fileURLWithPath: live.folder("a") + "/one.md"))
            #expect(await first.stop() == 0)
            try await installation.restore(from: backup)
            try await check(restored: installation.restored, port: first.port, home: home, work: work, before: before,
                            loadNotes: acknowledgedBeforeBackup)
        } catch {
            await first.stop()
            throw error
        }
    }

    /// The note written through the first server once the backup has ended.
    static let writtenAfterBackup = "after-backup.md"

    /// What the first server acknowledged before the backup: the account, a folder synced with
    /// notes (one of them with two revisions) and an attachment, a personal token and a session.
    struct Acknowledged {
        let attachmentBytes: [UInt8]
        let personalToken: String
        let accessToken: String
        let revisionsOfTwo: Int
        let twoID: String
    }

    private func prepare(_ live: LiveServer) async throws -> Acknowledged {
        try await live.server.addUser(TestAccount.username, password: TestAccount.password)
        try await live.login()
        let folder = try await live.initFolder("a")
        try Data("# One\n".utf8).write(to: URL(fileURLWithPath: folder + "/one.md"))
        try Data("# Two\n".utf8).write(to: URL(fileURLWithPath: folder + "/two.md"))
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/picture.bin"))
        try await live.sync("a")
        try Data("# Two\n\nsecond revision\n".utf8).write(to: URL(fileURLWithPath: folder + "/two.md"))
        try await live.sync("a")

        let api = try await TestAPIClient(live.server).signedIn(TestAccount.username, password: TestAccount.password)
        let created = try await api.send("POST", "/v1/tokens", json: CreateTokenRequest(name: "backup test", scope: .read))
        let token = try #require(try created.decode(PersonalTokenResource.self).token)
        let two = try #require(try await Self.entries(api).first { $0.path == "two.md" })
        let revisions = try await api.send("GET", "/v1/notes/\(two.id)/revisions").decode(RevisionList.self).revisions
        #expect(revisions.count == 2)
        return Acknowledged(attachmentBytes: bytes, personalToken: token, accessToken: try #require(api.token),
                            revisionsOfTwo: revisions.count, twoID: two.id.description)
    }

    private func check(restored: TestDatabase, port: Int, home: TemporaryDirectory, work: TemporaryDirectory,
                       before: Acknowledged, loadNotes: [String]) async throws {
        let second = try await TestServer.restarted(database: restored.location, port: port)
        do {
            let live = LiveServer(server: second, home: home, work: work)
            // The session the folder signed in with before the backup: no new sign-in.
            let report = try await live.sync("a")
            #expect(!second.log.contains(" 410 "), "no cursor was refused, so no full resync: \(second.log)")
            #expect(report.uploaded >= 1, "the edit made after the backup went up")
            let again = try await live.sync("a")
            #expect(again.uploaded == 0 && again.downloaded == 0, "converged")

            var anonymous = TestAPIClient(second)
            anonymous.token = before.accessToken
            #expect(try await anonymous.send("GET", "/v1/me").status == 200, "an access token issued before the backup")
            #expect(try await anonymous.send("GET", "/v1/me", token: before.personalToken).status == 200, "a personal token")
            let api = try await TestAPIClient(second).signedIn(TestAccount.username, password: TestAccount.password)

            let entries = try await Self.entries(api)
            let paths = Set(entries.map(\.path))
            #expect(paths.isSuperset(of: ["one.md", "two.md", "picture.bin"]), "\(paths)")
            #expect(paths.isSuperset(of: loadNotes), "every note written before the backup began")
            #expect(!paths.contains(Self.writtenAfterBackup), "what the server serves is the backup's, not what it replaced")
            let one = try #require(entries.first { $0.path == "one.md" })
            let note = try await api.send("GET", "/v1/notes/\(one.id)")
            #expect(note.text.contains("edited after the backup"), "the edit made since the backup: \(note.text)")
            let revisions = try await api.send("GET", "/v1/notes/\(before.twoID)/revisions").decode(RevisionList.self).revisions
            #expect(revisions.count == before.revisionsOfTwo)
            let download = try await api.send("GET", "/v1/content/\(SHA256.hex(of: before.attachmentBytes))")
            #expect(download.status == 200 && [UInt8](download.body) == before.attachmentBytes)
            let folder = live.folder("a")
            for path in loadNotes {
                #expect(FileManager.default.fileExists(atPath: folder + "/" + path), "\(path) reached the folder")
            }
        } catch {
            await second.stop()
            throw error
        }
        #expect(await second.stop() == 0)
    }

    /// Every note and attachment of the account, walking the changes feed to its end.
    static func entries(_ api: TestAPIClient) async throws -> [NoteResource] {
        var entries: [NoteResource] = []
        var query = [("kinds", "note,attachment")]
        while true {
            let page = try await api.send("GET", "/v1/changes", query: query).decode(ChangesPage.self)
            entries += page.changes
            guard page.hasMore else { return entries }
            query = [("kinds", "note,attachment"), ("since", page.cursor)]
        }
    }
}

/// Notes written one after another through the API until stopped: the paths acknowledged so far.
///
/// Stopped by a flag, not by cancelling its task: cancelling a task waiting in URLSession can
/// deadlock FoundationNetworking (the cancellation handler waits for the session's queue while
/// that queue waits to resume the task), so the request in flight is let finish instead.
private actor WriteLoad {
    let server: TestServer
    private(set) var acknowledged: [String] = []
    private var stopped = false

    init(server: TestServer) {
        self.server = server
    }

    func run() async -> [String] {
        guard let api = try? await TestAPIClient(server).signedIn(TestAccount.username, password: TestAccount.password) else {
            return acknowledged
        }
        var index = 0
        while !stopped {
            let path = "load/\(index).md"
            guard (try? await api.create(path, "# Load \(index)\n")) != nil else { break }
            acknowledged.append(path)
            index += 1
        }
        return acknowledged
    }

    /// Ends the load once the write in flight is answered.
    func stop() {
        stopped = true
    }
}
