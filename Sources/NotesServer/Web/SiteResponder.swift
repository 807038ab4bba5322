/// What the HTTP server answers with: the web app's pages, or the JSON API for everything else.
///
/// The split is by path alone (`WebApp.owns`), before any credential is looked at: the API
/// router never reads a cookie and the web app never reads a bearer token, so a browser's cookie
/// cannot authenticate `/v1/*` however a request is crafted. Both share the per-address request
/// rate.
struct SiteResponder: HTTPResponder {
    let api: Router
    let web: WebApp
    let rateLimiter: RequestRateLimiter?
    /// WebDAV under `/dav/`, which signs its requests in itself (docs/architecture.md §3.7).
    var dav: WebDAVResponder? = nil

    func respond(to request: HTTPRequest) -> HTTPOutcome {
        if let dav, WebDAVResponder.owns(path: request.path) { return dav.respond(to: request) }
        guard WebApp.owns(path: request.path) else { return api.respond(to: request) }
        do {
            try rateLimiter?.admit(request.remoteAddress)
        } catch {
            return .now(WebResponse.error(error, viewer: nil))
        }
        return web.respond(to: request)
    }

    func admitBody(of head: HTTPRequest) -> BodyAdmission {
        if let dav, WebDAVResponder.owns(path: head.path) { return dav.admitBody(of: head) }
        return WebApp.owns(path: head.path) ? web.admitBody(of: head) : api.admitBody(of: head)
    }

    func refusal(_ error: HTTPError, for head: HTTPRequest) -> HTTPResponse {
        if let dav, WebDAVResponder.owns(path: head.path) { return dav.refusal(error, for: head) }
        return WebApp.owns(path: head.path) ? web.refusal(error, for: head) : api.refusal(error, for: head)
    }
}
