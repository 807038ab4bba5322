import Foundation
import NotesCore
import NotesTestSupport
import Testing

@Suite("notes-server serve: start, signals and the database it leaves")
struct ServeLifecycleTests {
    @Test("SIGTERM sent the moment the address is printed always drains and exits 0", arguments: 0..<6)
    func sigtermRightAfterStartExitsCleanly(_ run: Int) async throws {
        let server = try await TestServer()
        let status = await server.stop()
        #expect(status == 0, "run \(run): exit status \(status); log: \(server.log)")
        #expect(server.log.contains("shutting down on SIGTERM"))
    }

    @Test("after a graceful stop the database is whole and keeps what was written", .sqliteOnly)
    func gracefulStopLeavesAHealthyDatabase() async throws {
        let server = try await TestServer()
        try await server.addUser("alice", password: TestAccount.password)
        let api = try await TestAPIClient(server).signedIn("alice", password: TestAccount.password)
        let note = try await api.create("kept.md", "# Kept\n")
        let copy = try TemporaryDirectory("notes-serve-copy")
        defer { copy.remove() }
        // Copy the files before stop() removes the server's folder, but after it has exited.
        let files = ["notes.sqlite", "notes.sqlite-wal", "notes.sqlite-shm"]
        server.process.terminate()
        let status = await server.waitForExit()
        for file in files where FileManager.default.fileExists(atPath: server.directory.appending(file).path) {
            try FileManager.default.copyItem(at: server.directory.appending(file), to: copy.appending(file))
        }
        await server.stop()
        #expect(status == 0)
        let database = try Database(path: copy.appending("notes.sqlite").path)
        #expect(try database.integrityCheck() == "ok")
        #expect(try database.scalarString("SELECT path FROM notes WHERE id = ?", [note.id.value]) == "kept.md")
    }
}
