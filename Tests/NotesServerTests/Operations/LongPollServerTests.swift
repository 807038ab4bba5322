import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// The long poll on the real binary: held connections answered over HTTP once resumed, and a
/// SIGTERM that answers every held request before the server drains and exits.
@Suite("Long poll: the real server")
struct LongPollServerTests {
    @Test("SIGTERM answers every held long poll with an empty page, then the server exits 0")
    func sigtermAnswersEveryWaiter() async throws {
        let server = try await TestServer(extraArguments: ["--max-waiters-per-user", "2"])
        for name in ["alice", "bob"] { try await server.addUser(name, password: TestAccount.password) }
        let alice = try await TestAPIClient(server).signedIn("alice", password: TestAccount.password)
        let bob = try await TestAPIClient(server).signedIn("bob", password: TestAccount.password)

        let waiters = [alice, alice, bob, bob].map { client in
            Task { try await Self.heldPoll(client, wait: 60) }
        }
        // Each user's cap is 2: a refusal with Retry-After proves both of the user's polls are held.
        for client in [alice, bob] {
            #expect(try await Self.isHeld(client), "the user's two long polls are held")
        }

        server.process.terminate()
        for waiter in waiters {
            let response = try await waiter.value
            #expect(response.status == 200, "a held poll is answered, not dropped or refused: \(response.status) \(response.text)")
            let page = try response.decode(ChangesPage.self)
            #expect(page.changes.isEmpty && page.cursor == "0" && !page.hasMore)
        }
        let status = await server.waitForExit()
        await server.stop()
        #expect(status == 0, "exit status \(status); log: \(server.log)")
        #expect(!server.log.contains(" 503 "), "no held poll waited for the drain's 503")
    }

    @Test("a held long poll woken by a write answers over HTTP with the change, and the server answers on")
    func wakeAnswersOverTheWire() async throws {
        try await LiveServer.with(["--max-waiters-per-user", "1"]) { server, alice in
            let poll = Task { try await Self.heldPoll(alice, wait: 30) }
            #expect(try await Self.isHeld(alice), "the long poll is held")
            let note = try await alice.create("woken.md", "# Woken\n")
            let response = try await poll.value
            #expect(response.status == 200)
            #expect(try response.decode(ChangesPage.self).changes.map(\.id) == [note.id])
            #expect(response.header("Connection") == "close", "a held answer closes its connection (see SyncController+Changes)")
            let after = try await alice.send("GET", "/v1/changes", query: [("since", "0")])
            #expect(after.status == 200)
        }
    }

    /// A long poll sent until it is held (refused past the cap while a probe holds the place, it
    /// is sent again shortly, as a client honouring `Retry-After` would), then its answer.
    /// - Throws: `StillRefused` when every try for 30 s was refused: the cap never made room.
    private static func heldPoll(_ client: TestAPIClient, wait: Int) async throws -> TestAPIResponse {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let response = try await client.send("GET", "/v1/changes", query: [("since", "0"), ("wait", String(wait))])
            guard isCapRefusal(response) else { return response }
            guard ContinuousClock.now < deadline else { throw StillRefused() }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// A long poll refused at the waiter cap for as long as a test is willing to try.
    struct StillRefused: Error, CustomStringConvertible {
        var description: String { "the long poll was refused at the waiter cap for 30 s: no place was ever free" }
    }

    /// The answer past a waiter cap: an ordinary empty page with `Retry-After`.
    private static func isCapRefusal(_ response: TestAPIResponse) -> Bool {
        response.status == 200 && response.header("Retry-After") != nil
    }

    /// Whether the user's long polls fill their cap: a probe is then refused with `Retry-After`
    /// (a probe admitted instead holds a place for its one second, and is asked again).
    private static func isHeld(_ client: TestAPIClient) async throws -> Bool {
        try await waitUntil(timeout: 30) {
            isCapRefusal(try await client.send("GET", "/v1/changes", query: [("since", "0"), ("wait", "1")]))
        }
    }
}
