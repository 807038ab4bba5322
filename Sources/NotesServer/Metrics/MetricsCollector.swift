import NotesCore

/// What `/metrics` shows: one scrape's worth of the server's counts and gauges, in the
/// Prometheus text format (docs/architecture.md §8 lists the metrics).
///
/// Everything is read at the scrape from where it is kept: the routes' series, the HTTP server's
/// atomics, the long-poll caps, the database pool, the sign-in throttle, and the database
/// itself for what only it knows (sessions, stored content), the last at most every
/// `StorageGauges.maxAge`. No label carries a user name, a path or a token: routes appear as
/// their templates.
struct MetricsCollector: Sendable {
    let requests: RequestMetrics
    let server: HTTPServer
    let app: Application
    let storage: StorageGauges

    init(requests: RequestMetrics, server: HTTPServer, app: Application) {
        self.requests = requests
        self.server = server
        self.app = app
        storage = StorageGauges(database: app.database, databasePath: app.configuration.databasePath)
    }

    /// The whole exposition, as the scrape's body.
    func render() -> String {
        var text = PrometheusText()
        text.metric("notes_build_info", "gauge", help: "Always 1; the version is in the label.")
        text.sample("notes_build_info", labels: "version=\"\(PrometheusText.escaped(NotesVersion.current))\"", 1)
        writeRequests(into: &text)
        writeHTTP(into: &text)
        writeSignIns(into: &text)
        writeDatabase(into: &text)
        storage.write(into: &text)
        writeContentStoreErrors(into: &text)
        return text.text
    }

    private func writeRequests(into text: inout PrometheusText) {
        let tallies = requests.series.map { ($0, $0.snapshot) }.filter { $0.1.count > 0 }
        text.metric("notes_http_requests_total", "counter", help: "Requests answered, by route template and status.")
        for (series, tally) in tallies {
            for (status, count) in tally.statuses.sorted(by: { $0.key < $1.key }) {
                text.sample("notes_http_requests_total", labels: series.labels + ",status=\"\(status)\"", count)
            }
        }
        let name = "notes_http_request_duration_seconds"
        text.metric(name, "histogram", help: "Time from the request line to the answer's completion, by route template.")
        for (series, tally) in tallies {
            var cumulative = 0
            for (index, bound) in RouteSeries.bucketBounds.enumerated() {
                cumulative += tally.buckets[index]
                text.sample(name + "_bucket", labels: series.labels + ",le=\"\(bound)\"", cumulative)
            }
            text.sample(name + "_bucket", labels: series.labels + ",le=\"+Inf\"", tally.count)
            text.sample(name + "_sum", labels: series.labels, tally.seconds)
            text.sample(name + "_count", labels: series.labels, tally.count)
        }
    }

    private func writeHTTP(into text: inout PrometheusText) {
        text.single("notes_http_requests_in_flight", "gauge", help: "Requests between their request line and their completion.",
                    server.inFlight.load(ordering: .relaxed))
        text.single("notes_http_request_bodies_in_flight", "gauge", help: "Request bodies being received.",
                    server.bodiesInFlight.load(ordering: .relaxed))
        text.single("notes_http_request_body_bytes_reserved", "gauge", help: "Bytes of the body budget reserved by bodies being received.",
                    server.bodyBudget.inUse)
        text.single("notes_http_request_body_budget_bytes", "gauge", help: "The memory all bodies being received may hold together (--body-budget).",
                    server.bodyBudget.limit)
        text.single("notes_long_polls_held", "gauge", help: "Changes requests held waiting for a change (the long poll).",
                    app.waitingRequests.held)
        text.single("notes_long_polls_capacity", "gauge", help: "The most changes requests held at once (--max-waiters).",
                    app.waitingRequests.caps.total)
    }

    private func writeSignIns(into text: inout PrometheusText) {
        text.single("notes_sign_in_failures_total", "counter", help: "Sign-in attempts with a wrong password or an unknown account.",
                    app.throttle.failures.load(ordering: .relaxed))
        text.single("notes_sign_in_throttled_total", "counter", help: "Sign-in attempts refused by the throttle before any password was checked.",
                    app.throttle.refusals.load(ordering: .relaxed))
    }

    private func writeDatabase(into text: inout PrometheusText) {
        let waits: WaitTally.Snapshot
        let size: Int
        switch app.database {
        case .sqlite(let queue):
            waits = queue.writerWaits.snapshot
            size = 1
        case .postgres(let pool):
            waits = pool.waits.snapshot
            size = pool.size
            text.single("notes_postgres_connection_errors_total", "counter",
                        help: "PostgreSQL connections that could not be opened, or were lost and not re-established.",
                        pool.connectionErrors.load(ordering: .relaxed))
        }
        text.single("notes_db_pool_size", "gauge", help: "Connections requests share: the PostgreSQL pool, or SQLite's one writer.", size)
        text.single("notes_db_pool_in_use", "gauge", help: "Connections of the pool held right now.", waits.inUse)
        text.single("notes_db_pool_acquisitions_total", "counter", help: "Connections taken from the pool.", waits.acquisitions)
        text.metric("notes_db_pool_wait_seconds_total", "counter", help: "Seconds spent waiting for a connection of the pool, all requests together.")
        text.sample("notes_db_pool_wait_seconds_total", waits.waitSeconds)
        text.single("notes_db_pool_failures_total", "counter",
                    help: "Requests that got no connection: none came free in time, or none could be opened.", waits.failures)
    }

    private func writeContentStoreErrors(into text: inout PrometheusText) {
        let name = "notes_content_store_errors_total"
        text.metric(name, "counter", help: "Content store operations that failed, by kind (full: no space; busy: retried by the client).")
        text.sample(name, labels: "kind=\"full\"", ContentStoreErrorCounts.full.load(ordering: .relaxed))
        text.sample(name, labels: "kind=\"busy\"", ContentStoreErrorCounts.busy.load(ordering: .relaxed))
        text.sample(name, labels: "kind=\"failed\"", ContentStoreErrorCounts.failed.load(ordering: .relaxed))
    }
}
