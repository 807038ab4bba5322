import CCurl
import Foundation
import Synchronization

/// One libcurl multi handle and the thread that drives it: every transfer of a `CurlClient`
/// runs on it, so they share its connections (kept alive between requests) and its DNS cache,
/// and run concurrently without a thread each.
///
/// Other threads only post to `inbox` and wake the thread (`curl_multi_wakeup`, which is
/// thread-safe); the handle itself, the easy handles on it and `active` belong to the thread.
/// That is why the type is `@unchecked Sendable`.
final class CurlMulti: @unchecked Sendable {
    private enum Command {
        case add(CurlTransfer)
        case cancel(CurlTransfer)
    }

    private struct Inbox {
        var commands: [Command] = []
        var stopping = false
    }

    private let handle: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    /// The transfers on the handle, by easy handle (the thread's own).
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    /// How long the thread sleeps with nothing in flight, unless woken.
    private static let idlePoll: Int32 = 60_000

    /// Makes the handle and starts its thread.
    /// - Throws: `CurlFailure` when libcurl cannot make a multi handle (out of memory).
    init() throws(CurlFailure) {
        CurlGlobal.ensureInitialised()
        guard let handle = curl_multi_init() else {
            throw CurlFailure(kind: .other, detail: "libcurl could not make a multi handle")
        }
        self.handle = handle
        let thread = Thread { [self] in run() }
        thread.name = "notes-curl"
        thread.start()
    }

    /// Hands `transfer` to the thread, which starts it.
    func add(_ transfer: CurlTransfer) { post(.add(transfer)) }

    /// Drops `transfer` from the handle (its caller already has the outcome).
    func cancel(_ transfer: CurlTransfer) { post(.cancel(transfer)) }

    /// Ends the thread: transfers still in flight fail as cancelled, and the handle is cleaned up.
    func stop() {
        inbox.withLock { $0.stopping = true }
        curl_multi_wakeup(handle)
    }

    private func post(_ command: Command) {
        inbox.withLock { $0.commands.append(command) }
        curl_multi_wakeup(handle)
    }

    // MARK: The thread

    private func run() {
        var running: Int32 = 0
        while true {
            let (commands, stopping) = inbox.withLock { inbox in
                defer { inbox.commands.removeAll() }
                return (inbox.commands, inbox.stopping)
            }
            for command in commands { apply(command) }
            if stopping { break }
            curl_multi_perform(handle, &running)
            collectFinished()
            let tick = sweep(now: .now)
            curl_multi_poll(handle, nil, 0, tick, nil)
        }
        for (easy, transfer) in active {
            curl_multi_remove_handle(handle, easy)
            transfer.fail(CurlFailure(kind: .cancelled))
        }
        active.removeAll()
        curl_multi_cleanup(handle)
    }

    private func apply(_ command: Command) {
        switch command {
        case .add(let transfer):
            guard !transfer.isFinished else { return }
            let code = curl_multi_add_handle(handle, transfer.easy.handle)
            guard code == CURLM_OK else {
                transfer.fail(CurlFailure(kind: .other, detail: String(cString: curl_multi_strerror(code))))
                return
            }
            active[transfer.easy.handle] = transfer
        case .cancel(let transfer):
            remove(transfer.easy.handle)
        }
    }

    private func remove(_ easy: UnsafeMutableRawPointer) {
        guard active.removeValue(forKey: easy) != nil else { return }
        curl_multi_remove_handle(handle, easy)
    }

    /// Hands each finished transfer its outcome.
    private func collectFinished() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(handle, &queued) {
            var code = CURLE_OK
            guard let easy = notes_curl_message_done(message, &code), let transfer = active[easy] else { continue }
            remove(easy)
            transfer.complete(code)
        }
    }

    /// Stops each transfer past its deadline or idle for its idle timeout, and returns how long
    /// to sleep before looking again (milliseconds): a quarter of the shortest idle timeout in
    /// flight, between 10 ms and 1 s, so a timeout is noticed at most that much late.
    private func sweep(now: ContinuousClock.Instant) -> Int32 {
        var shortest: Duration?
        for (easy, transfer) in active {
            if let failure = transfer.overdue(at: now) {
                remove(easy)
                transfer.fail(failure)
            } else {
                shortest = min(shortest ?? transfer.idleTimeout, transfer.idleTimeout)
            }
        }
        guard let shortest else { return Self.idlePoll }
        let tick = min(.seconds(1), max(.milliseconds(10), shortest / 4))
        return Int32(tick.components.seconds * 1000 + tick.components.attoseconds / 1_000_000_000_000_000)
    }
}
