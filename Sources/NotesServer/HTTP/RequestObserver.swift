/// Told of every request the HTTP server completes, on the thread that completed it: the route
/// that answered (nil when none was chosen), the status sent and the time since the request line.
///
/// Called for every request, so it must be cheap and must not block (see `RequestMetrics`).
protocol RequestObserver: Sendable {
    func completed(route: RouteSeries?, status: Int, elapsed: Duration)
}
