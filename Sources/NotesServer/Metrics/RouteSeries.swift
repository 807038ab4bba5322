import Synchronization

/// The request counts and latencies of one route template (`GET /v1/notes/:id`), for the
/// metrics: how many answers of each status, and how long they took, in fixed buckets.
///
/// One exists per registered route, made when the route is registered, so a request only finds
/// it on its route and records into it: one uncontended lock, no label built, nothing allocated
/// (a status seen for the first time adds one dictionary entry). Requests answered before any
/// route was chosen count in the `RequestMetrics.unrouted` series.
final class RouteSeries: Sendable {
    /// Upper bounds of the latency buckets, in seconds; a long poll's wait lands in the last ones.
    static let bucketBounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

    /// What one series has counted so far.
    struct Tally: Sendable {
        /// Answers by status code.
        var statuses: [Int: Int] = [:]
        /// Answers per latency bucket (not cumulative); the last counts those over every bound.
        var buckets = [Int](repeating: 0, count: RouteSeries.bucketBounds.count + 1)
        var seconds: Double = 0
        var count = 0
    }

    let method: String
    /// The route's pattern as registered (`/v1/notes/:id`): a template, never a request's path.
    let template: String
    /// `method="GET",route="/v1/notes/:id"`, escaped once here rather than at every scrape.
    let labels: String
    private let tally = Mutex(Tally())

    init(method: String, template: String) {
        self.method = method
        self.template = template
        labels = "method=\"\(PrometheusText.escaped(method))\",route=\"\(PrometheusText.escaped(template))\""
    }

    /// Counts one answer with `status` that took `elapsed`.
    func record(status: Int, elapsed: Duration) {
        let (whole, fraction) = elapsed.components
        let seconds = Double(whole) + Double(fraction) * 1e-18
        var bucket = 0
        let bounds = Self.bucketBounds
        while bucket < bounds.count && seconds > bounds[bucket] { bucket += 1 }
        tally.withLock { tally in
            tally.statuses[status, default: 0] += 1
            tally.buckets[bucket] += 1
            tally.seconds += seconds
            tally.count += 1
        }
    }

    /// A copy of the counts, for a scrape.
    var snapshot: Tally { tally.withLock { $0 } }
}
