import Dispatch
import Synchronization

/// The published request rate (`ServerLimits.requestsPerMinute`), enforced per client address:
/// a client may burst up to a minute's allowance, then gets a steady `perMinute / 60` requests
/// a second; beyond that, 429 with `Retry-After`.
///
/// This is a token bucket written as the generic cell rate algorithm: per client it keeps one
/// number, the "theoretical arrival time" at which its bucket would be full again, so a check is
/// a lock, one dictionary lookup and integer arithmetic, with no allocation for a known client
/// (it sits on every request's path). Memory is bounded: when the table is full, clients whose
/// bucket has refilled (the same as no entry) are dropped, and if that frees too little the
/// table starts over, briefly forgiving everyone rather than growing without end.
///
/// Servers sharing one PostgreSQL database share the allowance through `SharedRateLedger`: each
/// server reports what it admitted (`takeAdmitted`) and is charged what the others admitted
/// (`charge`), about once a second, so an address gets the published rate across all servers,
/// give or take one second's worth on each.
final class RequestRateLimiter: Sendable {
    let perMinute: Int
    /// Nanoseconds one request "costs": the time the bucket takes to regain it.
    private let interval: UInt64
    /// How far ahead of now the arrival time may run: a full minute's allowance.
    private let burst: UInt64
    private let maxClients: Int
    private let state = Mutex(State())

    private struct State {
        /// Each client's theoretical arrival time.
        var arrivals: [String: UInt64] = [:]
        /// Requests admitted per address since the ledger last took them, when one is attached
        /// (`admitted` is nil otherwise); at most `maxClients` addresses.
        var admitted: [String: Int]?
    }

    init(perMinute: Int, maxClients: Int = 10_000) {
        precondition(perMinute > 0, "a request rate must be positive")
        self.perMinute = perMinute
        self.interval = 60_000_000_000 / UInt64(perMinute)
        self.burst = interval * UInt64(perMinute)
        self.maxClients = maxClients
    }

    /// Takes one request from `address`'s allowance.
    /// - Throws: `HTTPError` 429 with `Retry-After` (whole seconds until one more request is
    ///   allowed) when the allowance is used up; a refused request costs nothing.
    func admit(_ address: String) throws(HTTPError) {
        let now = DispatchTime.now().uptimeNanoseconds
        let wait: UInt64 = state.withLock { state in
            let next = max(state.arrivals[address] ?? now, now) + interval
            guard next - now <= burst else { return next - now - burst }
            if state.arrivals[address] == nil && state.arrivals.count >= maxClients { evict(&state.arrivals, now: now) }
            state.arrivals[address] = next
            if let count = state.admitted?[address] {
                state.admitted?[address] = count + 1
            } else if let known = state.admitted?.count, known < maxClients {
                state.admitted?[address] = 1
            }
            return 0
        }
        guard wait > 0 else { return }
        throw HTTPError.tooManyRequests(retryAfter: Int((wait + 999_999_999) / 1_000_000_000))
    }

    /// From now on, counts what it admits for a `SharedRateLedger` to report.
    func startSharing() {
        state.withLock { $0.admitted = $0.admitted ?? [:] }
    }

    /// What was admitted per address since the last call (bounded like the table: past
    /// `maxClients` addresses in one period, the others go unreported).
    func takeAdmitted() -> [String: Int] {
        state.withLock { state in
            defer { if state.admitted != nil { state.admitted = [:] } }
            return state.admitted ?? [:]
        }
    }

    /// Charges `address` for `requests` admitted by other servers, as if they had come here;
    /// never more than a full minute's allowance ahead, so the address is never refused longer
    /// than a local burst would have made it wait.
    func charge(_ address: String, requests: Int) {
        guard requests > 0 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { state in
            if state.arrivals[address] == nil && state.arrivals.count >= maxClients { evict(&state.arrivals, now: now) }
            let start = max(state.arrivals[address] ?? now, now)
            state.arrivals[address] = min(start + interval * UInt64(min(requests, perMinute)), now + burst + interval)
        }
    }

    private func evict(_ arrivals: inout [String: UInt64], now: UInt64) {
        arrivals = arrivals.filter { $0.value > now }
        if arrivals.count > maxClients * 9 / 10 { arrivals.removeAll(keepingCapacity: true) }
    }
}
