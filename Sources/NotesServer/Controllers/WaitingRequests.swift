import Synchronization

/// Counts the long polls held open, and refuses one more past any of three caps.
///
/// A held long poll costs no thread but keeps a connection, so the caps sit below the
/// connection limits they share: the total below `--max-connections` (see
/// `ServerConfiguration.effectiveMaxWaiters`), per client address half of
/// `--max-connections-per-address` (an address always keeps connections for its ordinary
/// requests, however many of its users watch), and per user a few, enough for several watching
/// devices. A refused request is answered at once with an empty page and `Retry-After`.
final class WaitingRequests: Sendable {
    struct Caps: Sendable, Equatable {
        var perUser: Int
        /// 0: no cap per address (behind trusted proxies, every client shares the proxy's).
        var perAddress: Int
        var total: Int
    }

    private struct Counts {
        var byUser: [Int64: Int] = [:]
        var byAddress: [String: Int] = [:]
        var total = 0
    }

    let caps: Caps
    private let counts = Mutex(Counts())

    init(caps: Caps) {
        self.caps = caps
    }

    /// Takes a place for one more held request, or returns false when a cap is reached.
    func admit(user: Int64, address: String) -> Bool {
        counts.withLock { counts in
            guard counts.total < caps.total,
                  counts.byUser[user, default: 0] < caps.perUser,
                  caps.perAddress == 0 || counts.byAddress[address, default: 0] < caps.perAddress else { return false }
            counts.total += 1
            counts.byUser[user, default: 0] += 1
            if caps.perAddress > 0 { counts.byAddress[address, default: 0] += 1 }
            return true
        }
    }

    /// Gives back the place `admit` took.
    func release(user: Int64, address: String) {
        counts.withLock { counts in
            counts.total -= 1
            counts.byUser[user, default: 1] -= 1
            if counts.byUser[user] == 0 { counts.byUser[user] = nil }
            if caps.perAddress > 0 {
                counts.byAddress[address, default: 1] -= 1
                if counts.byAddress[address] == 0 { counts.byAddress[address] = nil }
            }
        }
    }

    /// Requests held now.
    var held: Int { counts.withLock { $0.total } }
}
