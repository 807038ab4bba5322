import Testing
@testable import NotesServer

/// The parts of `/metrics` that do not need a server: a route's series sorts each latency into
/// its bucket and counts each status, and label values are escaped so the exposition stays
/// parseable whatever a route template holds.
@Suite("Metrics series and text")
struct MetricsSeriesTests {
    @Test("a latency counts in the first bucket whose bound holds it, one over every bound only past the last; statuses count apart")
    func latenciesLandInTheirBuckets() {
        let series = RouteSeries(method: "GET", template: "/v1/notes/:id")
        series.record(status: 200, elapsed: .microseconds(500))
        series.record(status: 200, elapsed: .milliseconds(1))
        series.record(status: 404, elapsed: .milliseconds(30))
        series.record(status: 200, elapsed: .seconds(90))
        let tally = series.snapshot
        let bounds = RouteSeries.bucketBounds
        #expect(tally.buckets[0] == 2, "0.5 ms and exactly 1 ms are both within the 1 ms bound")
        #expect(tally.buckets[bounds.firstIndex(of: 0.05)!] == 1, "30 ms lands in the 50 ms bucket")
        #expect(tally.buckets[bounds.count] == 1, "90 s is over every bound")
        #expect(tally.buckets.reduce(0, +) == 4 && tally.count == 4)
        #expect(tally.statuses == [200: 3, 404: 1])
        #expect(abs(tally.seconds - 90.0315) < 1e-9)
        #expect(series.labels == #"method="GET",route="/v1/notes/:id""#)
    }

    @Test("label values escape backslash, double quote and line feed; other text is kept as it is")
    func labelValuesAreEscaped() {
        #expect(PrometheusText.escaped(#"a\b"c"# + "\nd") == #"a\\b\"c\nd"#)
        #expect(PrometheusText.escaped("/v1/notes/:id/revisions/:rev") == "/v1/notes/:id/revisions/:rev")
        let series = RouteSeries(method: "GET", template: "/odd\"path")
        #expect(series.labels == #"method="GET",route="/odd\"path""#)
    }

    @Test("samples are written as name{labels} value, and non-finite values in the format's own words")
    func samplesAreWrittenInTheFormat() {
        var text = PrometheusText()
        text.metric("notes_x_total", "counter", help: "An example.")
        text.sample("notes_x_total", labels: #"kind="a""#, 3)
        text.sample("notes_y", Double.infinity)
        #expect(text.text == "# HELP notes_x_total An example.\n# TYPE notes_x_total counter\nnotes_x_total{kind=\"a\"} 3\nnotes_y +Inf\n")
    }
}
