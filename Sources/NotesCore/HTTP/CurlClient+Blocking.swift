import Dispatch
import Synchronization

extension CurlClient {
    /// Sends `request` and waits on the calling thread for its answer, whatever the status, or
    /// why there is none: for code that runs on threads of its own and answers one request per
    /// thread (an HTTP server's handler threads), not for a task of Swift's cooperative pool.
    ///
    /// The transfer runs on the client's multi thread like any other, which hands the outcome
    /// over itself, so the wait needs no other thread to make progress. It ends by the request's
    /// deadline at the latest (the multi thread's sweep stops it then).
    public func performAndWait(_ request: CurlRequest) -> Result<CurlResponse, CurlFailure> {
        let transfer: CurlTransfer
        do {
            transfer = try makeTransfer(for: request)
        } catch {
            return .failure(error)
        }
        let outcome = Mutex<Result<CurlResponse, CurlFailure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let started = transfer.start { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        if started { multi.add(transfer) }
        // The sweep ends the transfer at its deadline; this bound only keeps a thread from
        // waiting forever on a multi handle that has stopped.
        if done.wait(timeout: .now() + Self.dispatchInterval(request.deadline + Self.waitGrace)) == .timedOut {
            transfer.fail(CurlFailure(kind: .deadlineExceeded))
            multi.cancel(transfer)
            done.wait()
        }
        return outcome.withLock { $0 } ?? .failure(CurlFailure(kind: .cancelled))
    }

    /// How long past a request's deadline a waiting thread gives up on the multi thread.
    private static let waitGrace = Duration.seconds(5)

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .milliseconds(Int(min(seconds, Int64(Int32.max))) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
