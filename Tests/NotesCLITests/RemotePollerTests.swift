import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// How a watcher waits for the server's changes, against a scripted server: a long poll where
/// the server publishes `max_wait_seconds`, and never a busy loop where it does not hold requests.
@Suite("Sync: waiting for remote changes")
struct RemotePollerTests {
    private static let emptyPage = ScriptedHTTPServer.Reply.json(200, #"{"changes":[],"cursor":"c1","has_more":false,"user_id":1}"#)

    private static func limits(maxWait: Int?) -> ScriptedHTTPServer.Reply {
        let wait = maxWait.map { #","max_wait_seconds":\#($0)"# } ?? ""
        return .json(200, #"{"max_note_bytes":1048576,"max_request_bytes":8388608,"max_batch_operations":1000,"max_page_size":1000,"requests_per_minute":6000\#(wait)}"#)
    }

    private static func server(maxWait: Int?) throws -> ScriptedHTTPServer {
        try ScriptedHTTPServer { request in request.path == "/v1/limits" ? limits(maxWait: maxWait) : emptyPage }
    }

    private static func client(_ server: ScriptedHTTPServer) throws -> APIClient {
        APIClient(server: try ServerURL(server.baseURL), credential: .personalToken("nat_scripted"))
    }

    @Test("a server publishing max_wait_seconds gets long polls of at most 60 s, for one change and no content")
    func longPollWhenPublished() async throws {
        let server = try Self.server(maxWait: 300)
        defer { server.stop() }
        let client = try Self.client(server)
        let hold = await RemotePoller.longPollSeconds(client)
        #expect(hold == 60)
        let answer = try await RemotePoller.poll(client, since: "c0", wait: hold)
        #expect(!answer.changed)
        let query = try #require(server.requests.last { $0.path == "/v1/changes" }).query
        #expect(query.contains("wait=60") && query.contains("limit=1") && query.contains("since=c0") && !query.contains("include"))
    }

    @Test("a server without long poll is polled without wait")
    func shortPollOtherwise() async throws {
        let server = try Self.server(maxWait: nil)
        defer { server.stop() }
        #expect(await RemotePoller.longPollSeconds(try Self.client(server)) == nil)
    }

    @Test("a server that answers at once despite wait is polled at the interval, never in a busy loop")
    func neverSpins() async throws {
        let server = try Self.server(maxWait: 30)
        defer { server.stop() }
        let client = try Self.client(server)
        let folder = SyncFolder(root: "/nonexistent", config: .init(server: server.baseURL, device: "test", caseInsensitive: false))
        let bound = FolderClient(client: client, account: AccountName(userId: 1, username: "ada"), folder: folder, adopted: false,
                                 usesPersonalToken: true)
        let shared = WatchShared(bound: bound, output: WatchOutput(json: true, terminal: Terminal()))
        shared.finishedSync(cursor: "c1")
        var settings = WatchSettings()
        settings.pollInterval = .milliseconds(300)
        let poller = Task { [settings] in await RemotePoller(shared: shared, settings: settings).run() }
        let polled = { server.requests.filter { $0.path == "/v1/changes" } }
        let sawSeveral = try await waitUntil(timeout: 30) { polled().count >= 4 }
        poller.cancel()
        #expect(sawSeveral)
        let times = polled().map(\.receivedAt)
        for (earlier, later) in zip(times, times.dropFirst()) {
            #expect(later.timeIntervalSince(earlier) >= 0.25, "polls are paced by the interval, not back to back")
        }
        #expect(polled().allSatisfy { $0.query.contains("wait=30") })
    }
}
