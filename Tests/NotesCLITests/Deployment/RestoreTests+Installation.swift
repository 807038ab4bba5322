import Foundation
import NotesTestSupport
import Testing

extension RestoreTests {
    /// Where one procedure's server runs before the backup and after the restore, and that
    /// procedure's steps from README.md "Operations: backup and restore". `remove()` throws it all
    /// away.
    struct Installation: Sendable {
        let procedure: Procedure
        /// The first server's database.
        let original: TestDatabase
        /// The database the restore fills and the second server runs on.
        let restored: TestDatabase
        /// The cluster of its own that a base backup copies whole and is restored into.
        let cluster: DedicatedPostgresCluster?

        static func make(_ procedure: Procedure) async throws -> Installation {
            switch procedure {
            case .sqlite, .postgres:
                let backend: TestBackend = procedure == .sqlite ? .sqlite : .postgres
                let original = try await TestDatabase.make(on: backend)
                do {
                    let restored = try await TestDatabase.make(on: backend)
                    return Installation(procedure: procedure, original: original, restored: restored, cluster: nil)
                } catch {
                    await original.drop()
                    throw error
                }
            case .postgresBaseBackup:
                let cluster = try await DedicatedPostgresCluster.start()
                do {
                    try await cluster.createDatabase("notes")
                } catch {
                    await cluster.stop()
                    throw error
                }
                // The cluster's data is replaced in place: the servers keep their --db.
                let database = TestDatabase.existing(cluster.url(database: "notes"))
                return Installation(procedure: procedure, original: database, restored: database, cluster: cluster)
            }
        }

        /// Backs up what `server` serves into the folder `backups`, as README.md says.
        /// - Returns: the backup: a file, or pg_basebackup's folder.
        func backUp(_ server: TestServer, into backups: TemporaryDirectory) async throws -> String {
            let backup = try await backUpDatabase(server, into: backups)
            // With an S3 store (the S3 pass), the bucket after the database: what the copy names is there.
            _ = try await TestContentStore.downloadObjects(forDatabase: original.location, into: backups.appending("bucket").path)
            return backup
        }

        private func backUpDatabase(_ server: TestServer, into backups: TemporaryDirectory) async throws -> String {
            guard let cluster else {
                let file = backups.appending("notes.backup").path
                let store = TestContentStore.s3(forDatabase: original.location)
                let result = try await server.admin(["backup", file] + (store.map { ["--content-store", $0.store] } ?? []))
                #expect(result.exitCode == 0, "\(result.stderr)")
                if store != nil && procedure == .sqlite {
                    #expect(result.stdout.contains("which this backup does not copy"), "says the bucket is not in it: \(result.stdout)")
                }
                return file
            }
            let folder = backups.appending("base").path
            let result = try await ProcessRunner.run(TestPostgresCluster.clientProgram("pg_basebackup"), [
                "--host=\(cluster.directory)", "--username=postgres",
                "--pgdata=\(folder)", "--wal-method=stream", "--checkpoint=fast",
            ])
            #expect(result.exitCode == 0, "\(result.stderr)")
            return folder
        }

        /// README.md's restore steps, with every server stopped.
        func restore(from backup: String) async throws {
            switch procedure {
            case .sqlite:
                // The backup file becomes the database, its .content folder the content directory beside it.
                let path = try #require(restored.sqlitePath)
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: backup, toPath: path)
                if !TestContentStore.isS3 {
                    try FileManager.default.copyItem(atPath: backup + ".content", toPath: path + ".content")
                }
            case .postgres:
                let result = try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/pg_restore"),
                                                         ["--no-owner", "--exit-on-error", "--dbname=\(restored.location)", backup])
                #expect(result.exitCode == 0, "\(result.stderr)")
            case .postgresBaseBackup:
                try await #require(cluster).restore(fromBaseBackup: backup)
            }
            // The bucket's copy under the restored database's prefix: the restored server's --content-store.
            let bucket = ((backup as NSString).deletingLastPathComponent as NSString).appendingPathComponent("bucket")
            _ = try await TestContentStore.uploadObjects(from: bucket, forDatabase: restored.location)
        }

        func remove() async {
            await original.drop()
            await restored.drop()
            await cluster?.stop()
        }
    }
}
