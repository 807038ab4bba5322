import NotesCore

/// `/livez` and `/readyz`: the probes an orchestrator or a load balancer asks (docs/architecture.md §8).
///
/// Liveness says the process serves requests at all, so it reads nothing: a database that
/// cannot be reached is no reason to restart the server. Readiness says this server can do its
/// work now: it reads from the database and checks the content store, and answers 503 with
/// `Retry-After` while either cannot be reached, so a load balancer sends requests elsewhere.
/// Neither says why in detail to the caller; the log has the cause.
struct ProbeController: Sendable {
    let database: ServerDatabase
    let blobs: any BlobStore
    let log: @Sendable (String) -> Void

    func register(in router: inout Router) {
        router.add("GET", "/livez", access: .open) { _ in
            .now(.wire(["status": "live"]))
        }
        router.add("GET", "/readyz", access: .open) { context in
            do {
                try database.checkReachable()
            } catch {
                log("req=\(context.request.id) not ready: the database cannot be reached: \(error)")
                throw Self.notReady("database")
            }
            do {
                try blobs.checkReachable()
            } catch {
                log("req=\(context.request.id) not ready: the content store cannot be reached: \(error)")
                throw Self.notReady("content store")
            }
            return .now(.wire(["status": "ready"]))
        }
    }

    /// 503 naming the part that cannot be reached (never its address or the error's text).
    static func notReady(_ part: String) -> HTTPError {
        HTTPError(503, code: "not_ready", message: "The \(part) cannot be reached; retry shortly.", headers: ["Retry-After": "5"])
    }
}
