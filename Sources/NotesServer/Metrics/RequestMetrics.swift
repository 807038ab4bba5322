/// Counts every answered request into its route's series (`RouteSeries`): the HTTP server's
/// `RequestObserver` for the public listener.
///
/// The series of the API's and the web app's routes belong to their routes; this type holds the
/// one for requests answered before a route was chosen (refused by the HTTP layer, over the
/// request rate, or for a path no route takes), labelled `route="(none)"`, so an unknown path
/// never becomes a label.
final class RequestMetrics: RequestObserver {
    /// Every route's series, in registration order, then `unrouted`.
    let series: [RouteSeries]
    let unrouted = RouteSeries(method: "", template: "(none)")

    init(routes: [RouteSeries]) {
        series = routes + [unrouted]
    }

    func completed(route: RouteSeries?, status: Int, elapsed: Duration) {
        (route ?? unrouted).record(status: status, elapsed: elapsed)
    }
}
