import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing

/// Two `notes-server` processes on one database, many writers through both, and a reader
/// following `GET /v1/changes` at the same time: the changes feed never skips (`docs/scaling.md`).
///
/// The danger: a change whose transaction commits later than another's, but whose revision is
/// lower, becomes visible behind a cursor the reader has already passed, and is never seen. A
/// reader that missed one ends with an older state of that note than the server's. So each
/// round's reader must end, after one last drain of the feed, with exactly the state the writers
/// were acknowledged and the server's own full feed shows.
///
/// Runs on this pass's backend: on the PostgreSQL pass two servers share one PostgreSQL database,
/// on the SQLite pass one SQLite file. Every round is seeded (`SeededRandom`): a failure names its
/// seed, and the same seed makes the same writes.
/// Bounded: 8 rounds of 4 × 12 writes take seconds alone and a few minutes in the whole, loaded
/// suite; the time limit only catches a hang.
@Suite("Changes feed: many writers through two servers, one reader", .timeLimit(.minutes(10)))
struct ChangesFeedConcurrentWritersTests {
    static let seeds: [UInt64] = Array(1...8)
    static let writers = 4
    static let writesPerWriter = 12

    @Test("a reader following the feed while writers go through two servers ends with exactly the final state, every seed")
    func readerFollowingTheFeedNeverMissesAChange() async throws {
        try await TestServer.sharingOneDatabase(2) { servers in
            for seed in Self.seeds {
                try await Self.round(seed: seed, servers: servers)
            }
        }
    }

    /// A note as the feed last showed it (or as its writer was last acknowledged).
    struct Seen: Equatable, CustomStringConvertible {
        var path: String
        var content: String
        var deleted: Bool

        var description: String { deleted ? "deleted \(path)" : "\(path): \(content.debugDescription)" }
    }

    /// One seeded round for a user of its own: the writers and the reader at once, then the
    /// reader's last drain, then the three states compared.
    static func round(seed: UInt64, servers: [TestServer]) async throws {
        let username = "feed\(seed)"
        try await servers[0].addUser(username, password: TestAccount.password)
        // One session: its access token is good on either server, which share the database.
        let signedIn = try await TestAPIClient(servers[0]).signedIn(username, password: TestAccount.password)
        let clients = servers.map { TestAPIClient(baseURL: $0.baseURL, token: signedIn.token) }

        let writing = Flag()
        async let followed = follow(clients, seed: seed, while: writing)
        let acknowledged: [NoteID: Seen]
        do {
            acknowledged = try await withThrowingTaskGroup(of: [NoteID: Seen].self) { group in
                for writer in 0..<writers {
                    group.addTask { try await write(writer, clients, seed: seed) }
                }
                return try await group.reduce(into: [:]) { $0.merge($1) { _, new in new } }
            }
        } catch {
            writing.lower()
            _ = try? await followed
            throw error
        }
        writing.lower()
        var reader = try await followed
        // The writers are done: one more pass to the end of the feed, as a reader's next poll.
        reader = try await drain(clients[0], from: reader)
        let server = try await drain(clients[1], from: FeedReader())

        #expect(reader.seen == acknowledged, "seed \(seed): the reader's state differs from what the writers were acknowledged: \(difference(reader.seen, acknowledged))")
        #expect(server.seen == acknowledged, "seed \(seed): the server's full feed differs from what the writers were acknowledged: \(difference(server.seen, acknowledged))")
        #expect(reader.polls > 1, "seed \(seed): the reader polled while the writers wrote")
    }

    /// Raised while the writers write; the reader polls until it is lowered.
    final class Flag: Sendable {
        private let raised = Mutex(true)
        var isRaised: Bool { raised.withLock { $0 } }
        func lower() { raised.withLock { $0 = false } }
    }

    /// What a reader has accumulated: every note by id as the feed last showed it, and where it is.
    struct FeedReader: Sendable {
        var seen: [NoteID: Seen] = [:]
        var cursor: String?
        var polls = 0

        /// Applies one page, as a syncing client does: each entry is the note's latest state.
        mutating func apply(_ page: ChangesPage) {
            for entry in page.changes {
                seen[entry.id] = Seen(path: entry.path, content: entry.deleted ? "" : entry.content ?? "", deleted: entry.deleted)
            }
            cursor = page.cursor
            polls += 1
        }
    }

    /// Polls the feed through a server chosen at random each time until the writers are done.
    static func follow(_ clients: [TestAPIClient], seed: UInt64, while writing: Flag) async throws -> FeedReader {
        var random = SeededRandom(seed: seed &* 7919)
        var reader = FeedReader()
        while writing.isRaised {
            let client = clients[Int.random(in: 0..<clients.count, using: &random)]
            reader.apply(try await page(client, after: reader.cursor, limit: Int.random(in: 1...20, using: &random)))
        }
        return reader
    }

    /// Reads the feed from `reader`'s cursor to its end.
    static func drain(_ client: TestAPIClient, from reader: FeedReader) async throws -> FeedReader {
        var reader = reader
        while true {
            let page = try await page(client, after: reader.cursor, limit: 200)
            reader.apply(page)
            if !page.hasMore { return reader }
        }
    }

    /// One page of the feed, content included.
    static func page(_ client: TestAPIClient, after cursor: String?, limit: Int) async throws -> ChangesPage {
        var query = [("include", "content"), ("limit", String(limit))]
        if let cursor { query.append(("since", cursor)) }
        let response = try await client.send("GET", "/v1/changes", query: query)
        try #require(response.status == 200, "GET /v1/changes answered \(response.status): \(response.text)")
        return try response.decode(ChangesPage.self)
    }

    /// One writer: creates, edits, renames and deletes notes of its own through either server at
    /// random, and returns the state each of its notes was last acknowledged in. Owning its notes,
    /// it never meets a precondition failure; the writers meet each other in the user's revisions.
    static func write(_ writer: Int, _ clients: [TestAPIClient], seed: UInt64) async throws -> [NoteID: Seen] {
        var random = SeededRandom(seed: seed &* 1_000 &+ UInt64(writer))
        var live: [NoteResource] = []
        var acknowledged: [NoteID: Seen] = [:]
        for step in 0..<writesPerWriter {
            let client = clients[Int.random(in: 0..<clients.count, using: &random)]
            let content = "writer \(writer) step \(step) \(random.next())\n"
            let choice = live.isEmpty ? 0 : Int.random(in: 0..<10, using: &random)
            switch choice {
            case 0..<4:
                let note = try await client.create("w\(writer)/n\(step).md", content)
                live.append(note)
                acknowledged[note.id] = Seen(path: note.path, content: content, deleted: false)
            case 4..<8:
                let index = Int.random(in: 0..<live.count, using: &random)
                let path = choice == 7 ? "w\(writer)/renamed\(step).md" : live[index].path
                let note = try await client.update(live[index], path: path, content: content)
                live[index] = note
                acknowledged[note.id] = Seen(path: note.path, content: content, deleted: false)
            default:
                let note = live.remove(at: Int.random(in: 0..<live.count, using: &random))
                let tombstone = try await client.delete(note)
                acknowledged[note.id] = Seen(path: tombstone.path, content: "", deleted: true)
            }
        }
        return acknowledged
    }

    /// The notes on which two states differ, for a failure message.
    static func difference(_ got: [NoteID: Seen], _ expected: [NoteID: Seen]) -> String {
        let ids = Set(got.keys).union(expected.keys).filter { got[$0] != expected[$0] }
        return ids.map { "\($0): \(got[$0]?.description ?? "missing") instead of \(expected[$0]?.description ?? "nothing")" }
            .sorted().joined(separator: "; ")
    }
}
