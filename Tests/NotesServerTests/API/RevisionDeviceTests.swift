import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Revisions record the device that made them (`notes log`'s "device" column); revisions
/// from before the server recorded it come through the migration and show none.
@Suite("Revision devices")
struct RevisionDeviceTests {
    @Test(.sqliteOnly) func revisionsFromBeforeTheMigrationShowNoDeviceAndNewOnesShowTheSessions() async throws {
        let folder = try TemporaryDirectory("notes-device-migration")
        defer { folder.remove() }
        let path = folder.appending("notes.sqlite").path
        // The database as a server without device recording left it: the migrations before that one
        // (later ones, such as version 4's username keys, run on top of it as an upgrade would).
        let older = Migrator(Array(ServerSchema.migrator.migrations.prefix { !$0.sql.contains("revisions ADD COLUMN device") }))
        #expect(older.latestVersion == 2)
        let oldID = NoteID()
        do {
            let queue = try DatabaseQueue(path: path, migrator: older)
            try queue.write { db in
                try db.run("INSERT INTO users (username, password_hash, created_at, last_rev) VALUES (?, ?, 0, 1)",
                           TestAccount.username, try PasswordHash.make(TestAccount.password))
                try db.run("""
                    INSERT INTO revisions (user_id, note_id, rev, path, content, hash, size, deleted, created_at)
                    VALUES (1, ?, 1, 'old.md', 'x', ?, 1, 0, 0)
                    """, oldID.value, SHA256.hex(of: "x"))
            }
            try queue.close()
        }

        let app = try TestApp { $0.databasePath = path }
        defer { app.close() }
        let old = await app.send("GET", "/v1/notes/\(oldID.value)/revisions", token: try await app.signIn().accessToken)
        #expect(old.status == 200, "\(old.text)")
        #expect(try old.decode(RevisionList.self).revisions.map(\.device) == [nil])
        #expect(!old.text.contains("\"device\""))

        let login = try await app.send("POST", "/v1/auth/login",
                                       json: LoginRequest(username: TestAccount.username, password: TestAccount.password, device: "laptop"))
        let token = try login.decode(TokenResponse.self).accessToken
        let id = NoteID()
        let put = try await app.send("PUT", "/v1/notes/\(id.value)", json: PutNoteRequest(path: "new.md", content: "y"), token: token,
                                     headers: ["If-None-Match": "*"])
        #expect(put.status == 201, "\(put.text)")
        let batch = try await app.send("POST", "/v1/batch", json: BatchRequest(operations: [
            BatchOperation(op: .delete, id: id, ifMatch: try put.decode(NoteResource.self).rev),
        ]), token: try await app.createToken("nightly", scope: .write, using: token).token)
        #expect(batch.status == 200, "\(batch.text)")
        let new = await app.send("GET", "/v1/notes/\(id.value)/revisions", token: token)
        #expect(try new.decode(RevisionList.self).revisions.map(\.device) == ["token:nightly", "laptop"])
    }
}
