import Foundation
import NotesTestSupport
import Testing
@testable import NotesServer

/// Long-poll wake-ups across servers: two notifiers on one database, as two `notes-server`
/// processes would have, each with its own pool and listening connection.
@Suite("PostgreSQL change notifications", .needsPostgresCluster)
struct PostgresChangeNotifierTests {
    /// Two servers' notifiers on `database`, both listening, closed after `body`.
    static func withTwoServers(_ database: PostgresTestDatabase,
                               _ body: (PostgresChangeNotifier, PostgresChangeNotifier) async throws -> Void) async throws {
        let poolA = try PostgresPool(url: database.url, size: 2), poolB = try PostgresPool(url: database.url, size: 2)
        let a = PostgresChangeNotifier(url: database.url, pool: poolA)
        let b = PostgresChangeNotifier(url: database.url, pool: poolB)
        defer {
            a.close()
            b.close()
            poolA.close()
            poolB.close()
        }
        let listening = try await waitUntil { a.isListening && b.isListening }
        #expect(listening, "both listeners connect")
        try await body(a, b)
    }

    @Test("a change committed through one server wakes that user's waiter on the other, and only that user's")
    func wakesAcrossServers() async throws {
        try await withPostgresDatabase { database in
            try await Self.withTwoServers(database) { a, b in
                let mark = b.mark(for: 7)
                let deadline = ContinuousClock.now + .seconds(30)
                async let woken = b.wait(user: 7, after: mark, until: deadline)
                let held = try await waitUntil { b.waiting(user: 7) == 1 }
                #expect(held)
                a.changed(user: 8)
                a.changed(user: 7)
                let outcome = await woken
                guard case .changed(let now) = outcome else {
                    Issue.record("expected a wake-up, got \(outcome)")
                    return
                }
                #expect(now > mark)
                // User 8's notification reached B too, but moved only user 8's mark.
                let heardOtherUser = try await waitUntil { b.mark(for: 8) > ChangeMark(value: 0) }
                #expect(heardOtherUser)
                #expect(b.mark(for: 9) == ChangeMark(value: 0))
            }
        }
    }

    @Test("a listener whose backend is terminated reconnects, wakes everyone waiting, and still delivers")
    func reconnectsAndWakesEveryone() async throws {
        try await withPostgresDatabase { database in
            try await Self.withTwoServers(database) { a, b in
                // A request waiting on B while B's listener is cut off: nothing it waits for can
                // be heard meanwhile, so it must be woken to re-read by its cursor.
                let mark = b.mark(for: 7)
                async let woken = b.wait(user: 7, after: mark, until: ContinuousClock.now + .seconds(30))
                let held = try await waitUntil { b.waiting(user: 7) == 1 }
                #expect(held)
                let pid = b.listenerBackendPID
                #expect(pid != 0)
                let admin = try database.connect()
                defer { admin.close() }
                #expect(try admin.scalarString("SELECT pg_terminate_backend(?::int)::text", [Int64(pid)]) == "true")
                guard case .changed = await woken else {
                    Issue.record("the waiter was not woken after the reconnect")
                    return
                }
                #expect(b.reconnectCount == 1)
                let listeningAgain = try await waitUntil { b.isListening && b.listenerBackendPID != pid && b.listenerBackendPID != 0 }
                #expect(listeningAgain)

                // And the new connection hears changes committed on the other server.
                let again = b.mark(for: 7)
                async let next = b.wait(user: 7, after: again, until: ContinuousClock.now + .seconds(30))
                let heldAgain = try await waitUntil { b.waiting(user: 7) == 1 }
                #expect(heldAgain)
                a.changed(user: 7)
                guard case .changed = await next else {
                    Issue.record("a change after the reconnect was not delivered")
                    return
                }
            }
        }
    }

    @Test("a mark taken before a reconnect is stale: waiting on it returns at once")
    func markFromBeforeReconnectIsStale() async throws {
        try await withPostgresDatabase { database in
            try await Self.withTwoServers(database) { _, b in
                let mark = b.mark(for: 7)
                let pid = b.listenerBackendPID
                let admin = try database.connect()
                defer { admin.close() }
                _ = try admin.scalarString("SELECT pg_terminate_backend(?::int)::text", [Int64(pid)])
                let reconnected = try await waitUntil { b.reconnectCount == 1 && b.isListening }
                #expect(reconnected)
                // No waiter was registered during the outage, yet one arriving with an old mark
                // must not sleep through whatever committed while nobody listened.
                let outcome = await b.wait(user: 7, after: mark, until: ContinuousClock.now + .seconds(30))
                guard case .changed = outcome else {
                    Issue.record("expected an immediate wake-up, got \(outcome)")
                    return
                }
            }
        }
    }

    @Test("closing the notifier ends every wait with .closed")
    func closeEndsWaits() async throws {
        try await withPostgresDatabase { database in
            let pool = try PostgresPool(url: database.url, size: 1)
            defer { pool.close() }
            let notifier = PostgresChangeNotifier(url: database.url, pool: pool)
            let mark = notifier.mark(for: 1)
            async let waited = notifier.wait(user: 1, after: mark, until: ContinuousClock.now + .seconds(30))
            let held = try await waitUntil { notifier.waiting(user: 1) == 1 }
            #expect(held)
            notifier.close()
            #expect(await waited == .closed)
            #expect(await notifier.wait(user: 1, after: mark, until: ContinuousClock.now + .seconds(30)) == .closed)
        }
    }
}
