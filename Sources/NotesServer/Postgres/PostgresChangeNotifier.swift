import Foundation
import Synchronization

/// The `ChangeNotifier` of servers that share one PostgreSQL database: a change committed through
/// any server wakes the long polls waiting on every server.
///
/// - **Sending.** `changed(user:)`, called after a write committed, sends
///   `NOTIFY notes_changes, '<user id>'` (as `pg_notify`) in a transaction of its own: one
///   notification per writing transaction, carrying nothing but the user id. (A process that
///   dies between its commit and this NOTIFY leaves other servers' waiters to their deadline,
///   after which clients read the feed anyway: late, never lost.)
/// - **Listening.** One long-lived connection per server, on a thread of its own, `LISTEN`s and
///   waits in `poll(2)` on `PQsocket`; each notification (`PQconsumeInput`, `PQnotifies`,
///   `PQfreemem`) wakes that user's local waiters, through an `InProcessChangeNotifier`, whose
///   table of continuations holds them without threads. The notification this server sent
///   itself comes back the same way, so local and remote changes take one path.
/// - **Reconnecting.** PostgreSQL never replays notifications to a listener that was away.
///   When the connection drops, the listener reconnects with backoff (50 ms doubling to 5 s)
///   and then wakes *every* waiter: each re-reads the feed by its cursor, which finds whatever
///   committed meanwhile. A waiter that began waiting during the outage is woken as well (see
///   `epoch`), so no change that committed while nobody listened is slept through.
/// - **The note cache.** Every change heard, sent or received, forgets that user's kept notes
///   (the sender forgets at once, before its request is answered). While no `LISTEN` is in place
///   (before the first connection, and from the moment a connection is found lost until its
///   replacement listens) the cache is suspended: it holds nothing and serves nothing, since a
///   change committed meanwhile would go unheard.
final class PostgresChangeNotifier: ChangeNotifier {
    /// The channel every server listens on.
    static let channel = "notes_changes"

    private struct State {
        /// Waiting requests per user, so a reconnect knows whom to wake.
        var waitingUsers: [Int64: Int] = [:]
        /// Reconnections so far: a mark taken in an older epoch is stale.
        var epoch: UInt64 = 0
        var closed = false
    }

    private let local: InProcessChangeNotifier
    private let notes: NoteCache?
    private let state = Mutex(State())
    private let pool: PostgresPool
    private let url: PostgresURL
    private let log: @Sendable (String) -> Void
    /// Set once the listener has its first `LISTEN` in place (tests wait for it).
    private let listening = Atomic<Bool>(false)
    /// The listener's server process, for tests that kill it (0: not connected).
    private let listenerPID = Atomic<Int32>(0)
    private let reconnections = Atomic<Int>(0)

    /// Marks hold the epoch in their high 24 bits and the local mark in the low 40.
    private static let epochShift: UInt64 = 40
    private static let localMask: UInt64 = (1 << 40) - 1

    /// Starts listening on a connection of its own to `url`; notifications are sent through
    /// `pool`; `notes`, suspended until the listener listens, forgets what every change touches.
    init(url: PostgresURL, pool: PostgresPool, notes: NoteCache? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.url = url
        self.pool = pool
        self.log = log
        self.notes = notes
        local = InProcessChangeNotifier(notes: notes)
        notes?.suspend()
        let thread = Thread { [self] in listen() }
        thread.name = "notes-listen"
        thread.start()
    }

    func mark(for user: Int64) -> ChangeMark {
        let epoch = state.withLock { $0.epoch }
        return Self.mark(epoch: epoch, local: local.mark(for: user))
    }

    func wait(user: Int64, after mark: ChangeMark, until deadline: ContinuousClock.Instant) async -> ChangeWaitOutcome {
        // Counted as waiting *before* the epoch is compared: a reconnect then either sees this
        // user among the waiting (and wakes it below) or has already moved the epoch (seen here).
        let (epoch, closed) = state.withLock { state in
            state.waitingUsers[user, default: 0] += 1
            return (state.epoch, state.closed)
        }
        defer {
            state.withLock { state in
                state.waitingUsers[user, default: 1] -= 1
                if state.waitingUsers[user] == 0 { state.waitingUsers[user] = nil }
            }
        }
        if closed { return .closed }
        if epoch > mark.value >> Self.epochShift {
            return .changed(self.mark(for: user))
        }
        switch await local.wait(user: user, after: ChangeMark(value: mark.value & Self.localMask), until: deadline) {
        case .changed: return .changed(self.mark(for: user))
        case .timedOut: return .timedOut
        case .closed: return .closed
        }
    }

    /// Sends the notification for `user`; a failure is logged, never thrown: the write it
    /// announces has committed, and waiters elsewhere still end at their deadline.
    func changed(user: Int64) {
        // This server's own change: forgotten here now, and again when the notification returns.
        notes?.forget(user: user)
        do {
            try pool.withConnection { connection in
                try connection.run("SELECT pg_notify(?, ?)", Self.channel, String(user))
            }
        } catch {
            log("change notification for user \(user) not sent: \(error)")
        }
    }

    func close() {
        state.withLock { $0.closed = true }
        local.close()
    }

    /// Whether the listener is connected and listening (tests wait for it before notifying).
    var isListening: Bool { listening.load(ordering: .acquiring) }

    /// The server process of the listening connection (0 when none), for tests.
    var listenerBackendPID: Int32 { listenerPID.load(ordering: .acquiring) }

    /// Requests waiting now: for `user`, or for everyone when nil (tests read it).
    func waiting(user: Int64? = nil) -> Int { local.waiting(user: user) }

    /// How many times the listener reconnected after losing its connection.
    var reconnectCount: Int { reconnections.load(ordering: .acquiring) }

    private static func mark(epoch: UInt64, local: ChangeMark) -> ChangeMark {
        ChangeMark(value: epoch << epochShift | (local.value & localMask))
    }

    private var isClosed: Bool { state.withLock { $0.closed } }

    // MARK: - The listening thread

    /// Connects, listens, and turns notifications into wake-ups until `close()`.
    private func listen() {
        var backoff: TimeInterval = 0.05
        var connectedBefore = false
        while !isClosed {
            let connection: PostgresConnection
            do {
                connection = try PostgresConnection(url: url, extra: [
                    "application_name": "notes-server listener",
                    "keepalives": "1", "keepalives_idle": "30", "keepalives_interval": "10", "keepalives_count": "3",
                ])
                try connection.execute("LISTEN \(Self.channel)")
            } catch {
                log("change listener: \(error); retrying in \(backoff) s")
                let until = Date().addingTimeInterval(backoff)
                while !isClosed && Date() < until { Thread.sleep(forTimeInterval: min(0.25, max(0, until.timeIntervalSinceNow))) }
                backoff = min(backoff * 2, 5)
                continue
            }
            backoff = 0.05
            listenerPID.store(connection.backendPID, ordering: .releasing)
            listening.store(true, ordering: .releasing)
            // LISTEN is in place: every commit from now on is heard. Anything read before is suspect.
            notes?.resume()
            if connectedBefore {
                reconnections.add(1, ordering: .releasing)
                wakeEveryone()
            }
            connectedBefore = true
            receive(on: connection)
            // Notifications may be lost from here until the next LISTEN: keep and serve nothing.
            notes?.suspend()
            listening.store(false, ordering: .releasing)
            listenerPID.store(0, ordering: .releasing)
            connection.close()
        }
    }

    /// Waits for notifications on `connection` until it fails or the notifier closes.
    private func receive(on connection: PostgresConnection) {
        while !isClosed {
            var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
            guard descriptor.fd >= 0 else { return }
            // A bounded wait, so that `close()` is noticed within a quarter of a second.
            let ready = poll(&descriptor, 1, 250)
            if ready < 0 && errno != EINTR { return }
            if ready <= 0 { continue }
            do {
                for notification in try connection.receiveNotifications() where notification.channel == Self.channel {
                    if let user = Int64(notification.payload) { local.changed(user: user) }
                }
            } catch {
                log("change listener: \(error); reconnecting")
                return
            }
        }
    }

    /// After a reconnect: every waiter re-reads, since notifications sent meanwhile are lost.
    private func wakeEveryone() {
        let users = state.withLock { state in
            state.epoch += 1
            return Array(state.waitingUsers.keys)
        }
        for user in users { local.changed(user: user) }
    }
}
