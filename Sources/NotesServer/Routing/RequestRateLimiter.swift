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
    private let arrivals = Mutex<[String: UInt64]>([:])
    /// Requests admitted per address since the ledger last took them (only when one is attached).
    private let admitted = Mutex<[String: Int]>([:])
    private let isShared = Atomic<Bool>(false)

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
        let wait: UInt64 = arrivals.withLock { arrivals in
            let next = max(arrivals[address] ?? now, now) + interval
            guard next - now <= burst else { return next - now - burst }
            if arrivals[address] == nil && arrivals.count >= maxClients { evict(&arrivals, now: now) }
            arrivals[address] = next
            return 0
        }
        guard wait > 0 else {
            if isShared.load(ordering: .relaxed) { admitted.withLock { $0[address, default: 0] += 1 } }
            return
        }
        throw HTTPError.tooManyRequests(retryAfter: Int((wait + 999_999_999) / 1_000_000_000))
    }

    /// From now on, counts what it admits for a `SharedRateLedger` to report.
    func startSharing() {
        isShared.store(true, ordering: .relaxed)
    }

    /// What was admitted per address since the last call (bounded like the table: past
    /// `maxClients` addresses in one period, the rest go unreported).
    func takeAdmitted() -> [String: Int] {
        admitted.withLock { counts in
            defer { counts.removeAll(keepingCapacity: true) }
            return counts.count > maxClients ? Dictionary(uniqueKeysWithValues: counts.prefix(maxClients).map { ($0.key, $0.value) }) : counts
        }
    }

    /// Charges `address` for `requests` admitted by other servers, as if they had come here;
    /// never more than a full minute's allowance ahead, so the address is never refused longer
    /// than a local burst would have made it wait.
    func charge(_ address: String, requests: Int) {
        guard requests > 0 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        arrivals.withLock { arrivals in
            if arrivals[address] == nil && arrivals.count >= maxClients { evict(&arrivals, now: now) }
            let start = max(arrivals[address] ?? now, now)
            arrivals[address] = min(start + interval * UInt64(min(requests, perMinute)), now + burst + interval)
        }
    }

    private func evict(_ arrivals: inout [String: UInt64], now: UInt64) {
        arrivals = arrivals.filter { $0.value > now }
        if arrivals.count > maxClients * 9 / 10 { arrivals.removeAll(keepingCapacity: true) }
    }
}
