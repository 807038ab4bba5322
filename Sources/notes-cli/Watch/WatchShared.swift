import Foundation
import Synchronization

/// What the tasks of a watching sync share: the loop that syncs, the poller that waits for
/// the server, and the signal handler. Everything else belongs to the loop alone.
final class WatchShared: Sendable {
    private struct State {
        /// The client syncs and polls go through; replaced when a newer session is taken up.
        var bound: FolderClient
        /// The index's cursor after the last sync: where the poller waits from.
        var cursor: String?
        /// Syncs finished so far (whether or not they succeeded).
        var generation = 0
        /// The server has changes the folder has not: sync now, without a quiet period.
        var remoteChanged = false
        /// The poller found the session over; the loop decides what follows.
        var endedSession: ClientError?
        var stopping = false
        var online = true
    }

    private let state: Mutex<State>
    /// Wakes the loop: file events, a remote change, a stop request, an ended session.
    let loopWake = WakeSignal()
    /// Wakes the poller when a sync has finished.
    let syncFinished = WakeSignal()
    let output: WatchOutput

    init(bound: FolderClient, output: WatchOutput) {
        state = Mutex(State(bound: bound))
        self.output = output
    }

    var bound: FolderClient { state.withLock { $0.bound } }
    var generation: Int { state.withLock { $0.generation } }
    var stopping: Bool { state.withLock { $0.stopping } }
    var remoteChanged: Bool { state.withLock { $0.remoteChanged } }

    /// What the poller needs for its next request.
    var pollPoint: (bound: FolderClient, cursor: String?, generation: Int, sessionEnded: Bool) {
        state.withLock { ($0.bound, $0.cursor, $0.generation, $0.endedSession != nil) }
    }

    /// SIGINT or SIGTERM: stop after the step in progress.
    func requestStop() {
        state.withLock { $0.stopping = true }
        loopWake.signal()
    }

    /// The server has changes for the folder (or may have: it answers again after an outage).
    func markRemoteChanged() {
        state.withLock { $0.remoteChanged = true }
        loopWake.signal()
    }

    /// Takes the remote-change flag as the sync that will apply it starts.
    func clearRemoteChanged() {
        state.withLock { $0.remoteChanged = false }
    }

    /// Records a finished sync and the cursor it left, and wakes the poller.
    func finishedSync(cursor: String?) {
        state.withLock { state in
            state.generation += 1
            state.cursor = cursor
        }
        syncFinished.signal()
    }

    /// The poller saw the session end.
    func sessionEnded(_ error: ClientError) {
        state.withLock { $0.endedSession = $0.endedSession ?? error }
        loopWake.signal()
    }

    /// The ended session the poller reported, if any, taken by the loop.
    func takeEndedSession() -> ClientError? {
        state.withLock { state in
            defer { state.endedSession = nil }
            return state.endedSession
        }
    }

    /// Goes on with `client`, a newer session of the same account.
    func replaceClient(_ client: APIClient) {
        state.withLock { state in
            let old = state.bound
            state.bound = FolderClient(client: client, account: old.account, folder: old.folder, adopted: false, usesPersonalToken: false)
            state.endedSession = nil
        }
    }

    /// The server answered. After an outage, says so once and, when the poller noticed,
    /// has the loop sync what changed meanwhile on either side.
    func reached(bySync: Bool) {
        let cameBack = state.withLock { state in
            defer { state.online = true }
            return !state.online
        }
        guard cameBack else { return }
        output.state(.online, "back online: \(bound.folder.config.server) answers again")
        if !bySync { markRemoteChanged() }
    }

    /// The server could not be reached; says so once per outage.
    func unreachable(_ error: ClientError) {
        let wentAway = state.withLock { state in
            defer { state.online = false }
            return state.online
        }
        if wentAway { output.state(.offline, "offline: \(CLI.outcome(of: error).sentence); retrying until it answers") }
    }

    /// Returns once a sync after `generation` has finished (or the task is cancelled).
    func waitForSync(after generation: Int) async {
        while self.generation <= generation && !Task.isCancelled {
            await syncFinished.wait(until: nil)
        }
    }
}
