import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// A space's attachments count against its owner's quota, whoever uploads them
/// (docs/architecture.md §6.5). Runs on SQLite and, on the PostgreSQL pass, on PostgreSQL.
@Suite("Spaces: quota")
struct SpaceQuotaTests {
    static func quota(_ configuration: inout ServerConfiguration) {
        configuration.attachments.maxAttachmentBytes = 4096
        configuration.attachments.uploadChunkBytes = 1024
        configuration.attachments.quotaBytes = 1000
    }

    @Test("an editor's upload into a space is refused with 507 when the owner is over quota, not when the editor is")
    func spaceUsageIsChargedToTheOwner() async throws {
        try await SpaceFixture.with(Self.quota) { team in
            let alice = SignedInApp(app: team.app, token: team.alice)
            let bob = SignedInApp(app: team.app, token: team.bob)
            // Alice fills 700 of her 1000 bytes in her personal space.
            try await alice.upload(testBytes(700, seed: 1))

            let intoTeam = try await bob.send("POST", "\(team.teamPath)/uploads",
                                              json: UploadRequest(hash: SHA256.hex(of: testBytes(400, seed: 2)), size: 400))
            #expect(intoTeam.status == 507 && intoTeam.errorCode == "quota_exceeded", "answered \(intoTeam.status): \(intoTeam.text)")
            let whole = testBytes(400, seed: 3)
            let wholeIntoTeam = try await bob.send("PUT", "\(team.teamPath)/content/\(SHA256.hex(of: whole))", body: Data(whole))
            #expect(wholeIntoTeam.status == 507 && wholeIntoTeam.errorCode == "quota_exceeded")
            #expect(try team.app.count("SELECT count(*) FROM contents WHERE user_id = \(team.team)") == 0)

            // Bob's own 900 bytes are his: they neither count in Team nor stop his upload into it.
            try await bob.upload(testBytes(900, seed: 4))
            let fits = testBytes(250, seed: 5)
            let stored = try await bob.send("PUT", "\(team.teamPath)/content/\(SHA256.hex(of: fits))", body: Data(fits))
            #expect(stored.status == 201, "answered \(stored.status): \(stored.text)")
            let contents = team.app.application.contents
            #expect(try contents.usage(userID: try team.account("alice")) == 950, "alice is charged her 700 bytes and Team's 250")
            #expect(try contents.usage(userID: team.team) == 950)
            #expect(try contents.usage(userID: try team.account("bob")) == 900, "bob is charged only his own")
        }
    }

    @Test("a space in the trash still counts against its owner's quota")
    func trashedSpaceStillCounts() async throws {
        try await SpaceFixture.with(Self.quota) { team in
            let bob = SignedInApp(app: team.app, token: team.bob)
            let bytes = testBytes(800, seed: 6)
            let stored = try await bob.send("PUT", "\(team.teamPath)/content/\(SHA256.hex(of: bytes))", body: Data(bytes))
            #expect(stored.status == 201)
            #expect(await team.app.send("DELETE", team.teamPath, token: team.alice).status == 204)
            let alice = SignedInApp(app: team.app, token: team.alice)
            let over = try await alice.openUpload(testBytes(300, seed: 7))
            #expect(over.status == 507 && over.errorCode == "quota_exceeded")
        }
    }
}
