/// The metrics listener's only answer: `GET /metrics` (and `HEAD`), the Prometheus text format.
///
/// It runs on its own listener (`--metrics-listen`), never the public one, and reads no body.
struct MetricsResponder: HTTPResponder {
    let collector: @Sendable () -> String

    func respond(to request: HTTPRequest) -> HTTPOutcome {
        guard request.path == "/metrics" else {
            return .now(.error(.notFound("This listener serves only /metrics.")))
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .now(.error(.methodNotAllowed(allowed: ["GET", "HEAD"])))
        }
        return .now(HTTPResponse(status: 200, headers: ["Content-Type": PrometheusText.contentType], body: Array(collector().utf8)))
    }

    func admitBody(of head: HTTPRequest) -> BodyAdmission {
        .refuse(.payloadTooLarge(limit: 0))
    }
}
