import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing
@testable import notes_cli

/// The credentials lock is held only to read and write the file, never across the refresh's
/// network round trip: a refresh the server holds up must not keep other `notes` processes
/// from signing in, out, or rotating their own tokens.
@Suite("Authenticated client: the credentials lock during a refresh")
struct AuthRefreshLockTests {
    /// Opened by the test when the held-up refresh may answer.
    final class Gate: Sendable {
        private let opened = Atomic(false)
        func open() { opened.store(true, ordering: .releasing) }
        var isOpen: Bool { opened.load(ordering: .acquiring) }
    }

    /// A scripted server whose refresh answer waits until `release` is set (60 s at most: the box may be busy),
    /// issuing `nat_1`/`nrt_1`; every other request gets the user.
    static func heldRefreshServer(release: Gate) throws -> ScriptedHTTPServer {
        try ScriptedHTTPServer { request in
            let json = ["Content-Type": "application/json"]
            guard request.path == "/v1/auth/refresh" else {
                return .respond(status: 200, headers: json, body: (try? WireJSON.encoder().encode(AuthScriptedServerTests.user)) ?? Data())
            }
            let deadline = Date().addingTimeInterval(60)
            while !release.isOpen, Date() < deadline { usleep(5_000) }
            let answer = TokenResponse(accessToken: "nat_1", expiresIn: 3600, refreshToken: "nrt_1", user: AuthScriptedServerTests.user)
            return .respond(status: 200, headers: json, body: (try? WireJSON.encoder().encode(answer)) ?? Data())
        }
    }

    /// Waits (60 s at most: the box may be busy) until `server` has received a refresh request.
    static func waitForRefresh(_ server: ScriptedHTTPServer) async throws -> Bool {
        try await waitUntil(timeout: 60, every: .milliseconds(10)) { server.requests.contains { $0.path == "/v1/auth/refresh" } }
    }

    @Test("while a refresh waits on the server, the credentials lock is free, and the rotated tokens are stored once it answers")
    func refreshInFlightHoldsNoLock() async throws {
        try await withTemporaryDirectory { directory in
            let release = Gate()
            let server = try Self.heldRefreshServer(release: release)
            defer { server.stop() }
            let (client, store, _) = try await AuthScriptedServerTests.client(server, directory, expiresIn: 0)
            let request = Task { try await client.me() }
            #expect(try await Self.waitForRefresh(server))

            // What another process does first: take the lock, without waiting.
            let lock = try await FileLock.acquire(at: store.lockPath, timeout: 0)
            _ = consume lock

            release.open()
            #expect(try await request.value.username == "ada")
            #expect(try store.load().defaultSession(server: server.baseURL)?.refreshToken == "nrt_1")
            #expect(server.requests.last?.headers["authorization"] == "Bearer nat_1")
        }
    }

    @Test("tokens another process stores while this refresh is in flight win: this process uses them and does not overwrite them")
    func concurrentRotationWins() async throws {
        try await withTemporaryDirectory { directory in
            let release = Gate()
            let server = try Self.heldRefreshServer(release: release)
            defer { server.stop() }
            let (client, store, held) = try await AuthScriptedServerTests.client(server, directory, expiresIn: 0)
            let request = Task { try await client.me() }
            #expect(try await Self.waitForRefresh(server))

            // Another process rotated the same session meanwhile (the server's grace window lets both refresh).
            var theirs = held
            theirs.accessToken = "nat_theirs"
            theirs.refreshToken = "nrt_theirs"
            theirs.accessExpiresAt = Date().timeIntervalSince1970 + 3600
            let stored = theirs
            try await store.update { @Sendable file in file.store(stored, replacing: held, makeDefault: true) }

            release.open()
            #expect(try await request.value.username == "ada")
            #expect(try store.load().defaultSession(server: server.baseURL)?.refreshToken == "nrt_theirs")
            #expect(await client.session?.accessToken == "nat_theirs")
            #expect(server.requests.last?.headers["authorization"] == "Bearer nat_theirs")
        }
    }

    @Test("two notes processes refreshing the same expired session at once both succeed, and the session stored after them works")
    func twoProcessesRefreshAtOnce() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let held = try await harness.expireStoredAccessToken()

            async let first = harness.notes(["whoami"])
            async let second = harness.notes(["whoami"])
            let (one, two) = try await (first, second)
            #expect(one.exitCode == 0, "\(one.stderr)")
            #expect(two.exitCode == 0, "\(two.stderr)")
            let after = try #require(try harness.storedSession())
            #expect(after.refreshToken != held.refreshToken)
            // Whichever process stored last, what it stored is a live session.
            let third = try await harness.notes(["whoami"])
            #expect(third.exitCode == 0, "\(third.stderr)")
            #expect(try harness.storedSession()?.refreshToken == after.refreshToken)
        }
    }
}
