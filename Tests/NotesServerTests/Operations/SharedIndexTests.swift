import Foundation
import NotesTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The WAL index beside a SQLite database (`PATH-shm`): one the server cannot write is a
/// refusal at start, in a sentence, never a server that dies of a signal later; and a writable
/// one is shared, so admin commands and backups work beside a running server.
@Suite("notes-server: the -shm index beside the database", .sqliteOnly)
struct SharedIndexTests {
    /// Root writes any file whatever its mode: the refusal is seen by running the server as `nobody`.
    static let canRunAsAnotherUser = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    @Test("serve as a user who cannot write the -shm file refuses to start, naming it, and exits 1",
          .enabled(if: canRunAsAnotherUser, "needs root and setpriv to run the server as another user"))
    func unwritableIndexIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let nobody: uid_t = 65534
            #expect(chown(dir.path, nobody, gid_t(nobody)) == 0)
            let database = dir.appending("notes.sqlite").path
            let added = try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/setpriv"), Self.asNobody + [
                BuiltProducts.server.path, "user", "add", "alice", "--password-stdin", "--db", database,
            ], stdin: "correct horse battery\n")
            #expect(added.exitCode == 0, "\(added.stderr)")
            let index = database + "-shm"
            #expect(FileManager.default.createFile(atPath: index, contents: Data(count: 32 * 1024)))
            #expect(chown(index, nobody, gid_t(nobody)) == 0 && chmod(index, 0o444) == 0)

            let (served, exited) = try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/setpriv"), Self.asNobody + [
                BuiltProducts.server.path, "serve", "--db", database, "--listen", "127.0.0.1:0",
            ], killAfter: .seconds(30))
            #expect(exited, "the server started on an index it cannot write: \(served.stdout)")
            #expect(served.exitCode == 1)
            #expect(served.stderr == "notes-server serve: cannot write \(index), the index SQLite shares between the programs "
                    + "using the database (Permission denied): make it writable by this user, or remove it while nothing has the "
                    + "database open\n", "\(served.stderr)")
        }
    }

    @Test("beside a running server, user add, user list and backup work, and the server goes on serving what they wrote")
    func adminCommandsBesideARunningServer() async throws {
        try await LiveServer.with(account: .added) { server, client in
            let added = try await server.admin(["user", "add", "bob", "--password-stdin"], stdin: "bob's own password\n")
            #expect(added.exitCode == 0, "\(added.stderr)")
            let listed = try await server.admin(["user", "list"])
            #expect(listed.exitCode == 0 && listed.stdout.contains("bob"), "\(listed.stderr)")
            let backup = server.directory.appending("backup.sqlite").path
            let backedUp = try await server.admin(["backup", backup])
            #expect(backedUp.exitCode == 0, "\(backedUp.stderr)")
            #expect(FileManager.default.fileExists(atPath: backup))
            #expect(try await client.login("bob", "bob's own password").status == 200)
        }
    }

    private static let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
}
