import CMicroHTTPD
import Foundation

extension HTTPServer {
    private enum ShutdownStep {
        case done
        case waitForOtherCaller
        case stop(DaemonHandle)
    }

    /// Graceful stop: stop accepting, let in-flight requests finish (bounded), then stop the daemon.
    ///
    /// Safe from any thread, any number of times; a concurrent second call returns once the first
    /// has finished. Must not be called from inside `respond(to:)` (it waits for that very thread).
    /// Requests still suspended after `drainTimeoutSeconds` are answered 503 `shutting_down`, because
    /// `MHD_stop_daemon` aborts the process while any connection is suspended.
    ///
    /// `releaseWaiters` runs once no new connection can arrive and before the drain waits: the
    /// place to answer requests that are held on purpose (long polls), which would otherwise
    /// keep the drain waiting for their whole wait.
    func shutdown(releasingWaiters releaseWaiters: () -> Void = {}) {
        while true {
            let step: ShutdownStep = lifecycle.withLock { state in
                switch state {
                case .idle:
                    state = .stopped
                    return .done
                case .stopped:
                    return .done
                case .starting, .stopping:
                    return .waitForOtherCaller
                case .running(let handle):
                    state = .stopping
                    return .stop(handle)
                }
            }
            switch step {
            case .done:
                return
            case .waitForOtherCaller:
                usleep(1_000)
            case .stop(let handle):
                drainAndStop(handle, releasingWaiters: releaseWaiters)
                lifecycle.withLock { $0 = .stopped }
                return
            }
        }
    }

    private func drainAndStop(_ handle: DaemonHandle, releasingWaiters releaseWaiters: () -> Void) {
        draining.store(true, ordering: .relaxed)
        let listener = MHD_quiesce_daemon(handle.daemon)
        if listener != MHD_INVALID_SOCKET {
            close(listener)
        }
        releaseWaiters()
        let deadline = ContinuousClock.now + .milliseconds(Int(configuration.drainTimeoutSeconds * 1000))
        // Polling keeps this callable from any thread without a condition the MHD threads must signal.
        while inFlight.load(ordering: .acquiring) > 0 && ContinuousClock.now < deadline {
            usleep(1_000)
        }
        activity.withLock { $0.closing = true }
        // After `closing` nothing new is suspended; answer whatever still is, then wait for the
        // resumes to land (a state in the registry but not yet marked suspended is retried).
        while true {
            let stuck = activity.withLock { Array($0.suspended.values) }
            if stuck.isEmpty { break }
            for state in stuck {
                resume(state, with: .error(.shuttingDown))
            }
            usleep(1_000)
        }
        // A resumed request is answered only when libmicrohttpd's thread picks it up again; give
        // those answers a moment to reach the wire before the daemon closes every connection.
        let flushDeadline = ContinuousClock.now + .seconds(1)
        while inFlight.load(ordering: .acquiring) > 0 && ContinuousClock.now < flushDeadline {
            usleep(1_000)
        }
        // The sweep only touches sockets of registered connections under the registry's lock,
        // and stopping reports every connection closed first, so it may still run meanwhile.
        handle.sweeper.cancel()
        MHD_stop_daemon(handle.daemon)
        handle.context.release()
        handle.secrets.forEach { free($0) }
    }
}

/// Makes request data safe to put in a one-line, space-separated log.
enum LogText {
    /// Percent-escapes spaces, control characters and `%` so a decoded path cannot forge log lines.
    static func escaped(_ text: String) -> String {
        // On the contiguous bytes (no copy for a native string): it runs for every request's path.
        var contiguous = text
        guard contiguous.withUTF8({ $0.contains(where: needsEscape) }) else { return text }
        var output = ""
        for byte in text.utf8 {
            if needsEscape(byte) {
                output += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            } else {
                output.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return output
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == 0x7F || byte == 0x25
    }
}
