import Foundation
import NotesCore

/// `notes sync --watch`: syncs a bound folder once, then keeps it in sync for as long as it runs.
///
/// Local changes come from the folder watcher; a burst of them is one sync after the quiet
/// period. Remote changes come from `RemotePoller` and are applied at once. The sync itself is
/// the one-shot sync's engine, unchanged: every one of docs/architecture.md's Sync invariants holds for each cycle.
///
/// It runs for days. Access tokens are refreshed by the client as for every command; with the
/// server gone it says so once, retries with jittered backoff up to a minute and carries on by
/// itself. Only a definitive refusal ends it: the session over with no newer one stored on
/// this machine (exit 4), the mass-delete guard (exit 1), a folder it cannot use. SIGINT and
/// SIGTERM end it after the step in progress (exit 0). The folder's lock is held throughout.
final class WatchLoop {
    private let index: SyncIndex
    private let watcher: any FolderWatcher
    private let settings: WatchSettings
    private let environment: [String: String]
    private let shared: WatchShared
    private var output: WatchOutput { shared.output }
    private var root: String { shared.bound.folder.root }

    /// The folder as the last sync left it, to tell its own writes from the user's.
    private var synced: SyncedFiles
    private var ignore: IgnoreRules
    /// The first and the latest local change not yet synced.
    private var localFirst: ContinuousClock.Instant?
    private var localLast: ContinuousClock.Instant?
    /// Events were lost, or the hour is up: re-watch every folder and sync.
    private var rescanPending = false
    /// The last sync failed (or none ran yet): sync again once `retryAt` has passed.
    private var retryPending = true
    private var retryAt: ContinuousClock.Instant?
    private var backoff: Backoff
    private var nextRescan: ContinuousClock.Instant

    /// Watches `folder` until a signal or a definitive refusal.
    /// - Returns: 0 after SIGINT/SIGTERM.
    /// - Throws: `WatchError.stopped` with its cause when signed out for good or when the
    ///   mass-delete guard stops a sync; `FolderError` when the folder cannot be used;
    ///   `LockError` when another sync holds the folder.
    static func run(_ folder: SyncFolder, settings: WatchSettings, terminal: Terminal) async throws -> ExitCode {
        let lock = try SyncLock(path: folder.lockPath, holder: .watcher)
        defer { withExtendedLifetime(lock) {} }
        let index = try folder.openIndex()
        defer { try? index.close() }
        let bound = try await CommandSupport.client(forFolder: folder, terminal, tokenCheck: .byChangesFeed)
        // Watching starts before the first sync, so nothing changed during it goes unseen.
        let watcher = try makeFolderWatcher(root: bound.folder.root, settings: settings)
        let shared = WatchShared(bound: bound, output: WatchOutput(json: settings.json, terminal: terminal))
        let loop = WatchLoop(index: index, watcher: watcher, settings: settings, environment: terminal.environment, shared: shared)
        return try await loop.run()
    }

    private init(index: SyncIndex, watcher: any FolderWatcher, settings: WatchSettings, environment: [String: String],
                 shared: WatchShared) {
        self.index = index
        self.watcher = watcher
        self.settings = settings
        self.environment = environment
        self.shared = shared
        synced = SyncedFiles(rows: (try? index.rows()) ?? [])
        ignore = shared.bound.folder.ignoreRules()
        backoff = Backoff(cap: settings.maxBackoff)
        nextRescan = .now + settings.rescanInterval
    }

    private func run() async throws -> ExitCode {
        let shared = self.shared
        let signals = StopSignals { shared.requestStop() }
        defer { signals.cancel() }
        try watcher.start { shared.loopWake.signal() }
        defer { watcher.stop() }
        let poller = Task { [settings] in await RemotePoller(shared: shared, settings: settings).run() }
        defer { poller.cancel() }
        var announced = false
        while true {
            if shared.stopping {
                output.state(.stopped, "stopped watching \(root)")
                return .success
            }
            absorb(watcher.take())
            if let ended = shared.takeEndedSession() {
                try await renewSession(after: ended)
                continue
            }
            let now = ContinuousClock.now
            if now >= nextRescan {
                rescanPending = true
                nextRescan = now + settings.rescanInterval
            }
            let blocked = retryAt.map { now < $0 } ?? false
            let localDue = localLast.flatMap { last in localFirst.map { min(last + settings.quietPeriod, $0 + settings.maxDelay) } }
            if shared.remoteChanged || (!blocked && (rescanPending || retryPending || localDue.map { now >= $0 } ?? false)) {
                try await syncNow()
                if !announced {
                    announced = true
                    output.state(.watching, "watching \(root) for changes")
                }
                continue
            }
            var deadline = nextRescan
            if blocked, let retryAt { deadline = min(deadline, retryAt) }
            if !blocked, let localDue { deadline = min(deadline, localDue) }
            await shared.loopWake.wait(until: deadline)
        }
    }

    /// Notes the local changes among `events` (not the sync's own writes, not ignored files).
    private func absorb(_ events: LocalEvents) {
        for warning in events.warnings { output.state(.warning, "warning: \(warning)") }
        if events.overflowed {
            output.state(.warning, "warning: file events were lost (the system's event queue overflowed); rescanning the whole folder")
            rescanPending = true
            return
        }
        guard synced.containsChange(events, root: root, ignore: ignore) else { return }
        let now = ContinuousClock.now
        if localFirst == nil { localFirst = now }
        localLast = now
    }

    /// One sync with the engine of `notes sync`; a failure the network or the server may get
    /// over is retried later, anything definitive ends the watch.
    private func syncNow() async throws {
        if rescanPending { watcher.rewatch() }
        rescanPending = false
        retryPending = false
        localFirst = nil
        localLast = nil
        shared.clearRemoteChanged()
        let bound = shared.bound
        ignore = bound.folder.ignoreRules()
        var options = SyncOptions()
        options.allowMassDelete = settings.allowMassDelete
        let remote = AccountCheckedRemote(APISyncRemote(client: bound.client), bound: bound)
        let engine = SyncEngine(folder: bound.folder, index: index, remote: remote, options: options)
        defer { finishStep() }
        do {
            let report = try await engine.run()
            backoff.reset()
            retryAt = nil
            shared.reached(bySync: true)
            output.synced(report)
        } catch let refusal as MassDeleteRefusal {
            if settings.json { output.state(.failed, refusal.sentence) }
            throw WatchError.stopped(root: root, cause: refusal)
        } catch let error as ClientError where error.endsSession {
            try await renewSession(after: error)
        } catch let error as ClientError where error.losesSpace {
            if settings.json { output.state(.signedOut, CLI.outcome(of: error).sentence) }
            throw WatchError.stopped(root: root, cause: error)
        } catch let error as ClientError {
            if error.isUnreachable {
                shared.unreachable(error)
            } else {
                output.state(.failed, "sync failed: \(error); retrying")
            }
            retryPending = true
            retryAt = .now + backoff.next()
        }
    }

    /// After every sync: tell the poller, and learn what the sync left so that the events of
    /// its own writes (all queued by now) are recognised as such.
    private func finishStep() {
        synced = SyncedFiles(rows: (try? index.rows()) ?? [])
        shared.finishedSync(cursor: try? index.cursor())
        absorb(watcher.take())
    }

    /// The session is over: takes up a newer one if a sign-in on this machine stored one
    /// meanwhile, else stops with exit 4.
    private func renewSession(after error: ClientError) async throws {
        let bound = shared.bound
        // A sign-in on this machine ends the session it replaces on the server a moment before
        // it stores its own: give that write a few seconds to land before giving up. The
        // client's session provider adopts it (never behind NOTES_TOKEN's back).
        let patience = ContinuousClock.now + .seconds(5)
        while true {
            if !bound.usesPersonalToken, try await bound.client.adoptNewerSession() != nil {
                shared.replaceClient(bound.client)
                output.state(.sessionRenewed, "session renewed: \(bound.account.username) signed in again on this machine; going on with that session")
                shared.markRemoteChanged()
                return
            }
            guard ContinuousClock.now < patience, !shared.stopping else { break }
            try? await Task.sleep(for: .milliseconds(200), clock: .continuous)
        }
        let sentence = CLI.outcome(of: error).sentence
        if settings.json { output.state(.signedOut, sentence) }
        throw WatchError.stopped(root: root, cause: error)
    }
}

@available(*, unavailable)
extension WatchLoop: Sendable {}
