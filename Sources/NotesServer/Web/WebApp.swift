import NotesCore

/// The stores and services the pages use: the same ones the API uses, so a page and an API
/// call see and change the same notes, sessions and tokens under the same rules.
struct WebServices: Sendable {
    let users: UserStore
    let sessions: SessionStore
    let notes: NoteStore
    let tokens: PersonalTokenStore
    let passwords: PasswordWorker
    /// The API's sign-in throttle itself, so the web sign-in adds no attempts of its own.
    let throttle: LoginThrottle
    let lifetimes: BrowserSessionLifetimes
    /// Published notes, for the publish buttons and the account page's list.
    let publications: PublicationStore
    /// The identity providers the sign-in page offers, and the server's public address.
    let signIn: SignInSettings
    let log: @Sendable (String) -> Void
    /// Attachment contents, for the file pages and uploads (the API's store and limits).
    let contents: ContentStore
    /// The largest request body the server reads (`--max-request-size`): an upload form cannot be larger.
    let maxRequestBytes: Int
    /// Where a large note's page is rendered, off the connection threads (the API's pool).
    let renderWorker: RenderWorker
    /// Spaces and their members, for the switcher and the members pages.
    let spaces: SpaceStore
    /// The one place that decides whether the account may read or write a space.
    let spaceAccess: SpaceAccess
}

/// The web app: server-rendered pages under `/` for a signed-in browser.
///
/// A request is matched by method and `RoutePattern` in a `RouteTable`, as the API router's is. A `.signedIn` page
/// needs a live browser session cookie (else: the sign-in page); every POST needs the same
/// origin (`Origin`/`Referer`) and the session's CSRF token, checked here for every route so a
/// page cannot forget. The JSON API never sees these routes, and this router never serves
/// `/v1/*` (see `SiteResponder`), so a cookie can never authenticate an API call.
struct WebApp: Sendable {
    enum Access: Sendable {
        /// The sign-in page and the assets.
        case anyone
        /// Everything else.
        case signedIn

        /// Whether the route needs a live browser session: without one, the sign-in page; with
        /// one, a form it takes must carry the session's CSRF token.
        var needsSession: Bool { self == .signedIn }
    }

    typealias Handler = @Sendable (WebContext) throws -> HTTPOutcome
    /// Where a streamed body goes, decided from the request's head (see `addStreaming`).
    typealias BodySinkMaker = @Sendable (WebContext) throws -> (sink: any RequestBodySink, maxBytes: Int)

    struct Route: PatternRoute {
        let method: String
        let pattern: RoutePattern
        let access: Access
        let handler: Handler
        var bodySink: BodySinkMaker?
        /// This route's request counts and latencies (see `RouteSeries`).
        var series: RouteSeries
    }

    /// The header a script's request that is not a form (a `PUT` of a file's chunk) carries the
    /// session's CSRF token in.
    static let csrfHeader = "X-CSRF-Token"

    /// The first path segments the web app owns; every other path goes to the API router.
    static let ownedSegments: Set<Substring> = ["sign-in", "sign-out", "notes", "new", "search", "tags", "trash", "account", "assets", "preview", "files", "upload", "device", "s"]

    /// Whether `path` is a page of the web app (the root included).
    static func owns(path: String) -> Bool {
        if path == "/" { return true }
        guard path.hasPrefix("/") else { return false }
        let first = path.dropFirst().prefix { $0 != "/" }
        return ownedSegments.contains(first)
    }

    let services: WebServices
    /// The largest sign-in form read from someone without a session.
    let openBodyLimit: Int
    private var routes = RouteTable<Route>()

    init(services: WebServices, openBodyLimit: Int) {
        self.services = services
        self.openBodyLimit = openBodyLimit
        SignInPages(services: services).register(in: &self)
        AssetRoutes().register(in: &self)
        NotePages(services: services).register(in: &self)
        EditPages(services: services).register(in: &self)
        TaskPages(services: services).register(in: &self)
        HistoryPages(services: services).register(in: &self)
        SearchPage(services: services).register(in: &self)
        TagPages(services: services).register(in: &self)
        TrashPages(services: services).register(in: &self)
        AccountPages(services: services).register(in: &self)
        FilePages(services: services).register(in: &self)
        ChunkedUploadRoutes(services: services).register(in: &self)
        PublishPages(services: services).register(in: &self)
        DevicePages(services: services).register(in: &self)
        SpacePages(services: services).register(in: &self)
    }

    /// Registers `handler` for `method` on `pattern` (`/notes/:id/edit`).
    mutating func add(_ method: String, _ pattern: String, access: Access = .signedIn, handler: @escaping Handler) {
        routes.append(Route(method: method, pattern: RoutePattern(pattern), access: access, handler: handler,
                            series: RouteSeries(method: method, template: pattern)))
    }

    /// Registers a signed-in route whose body streams into the sink `sink` makes from the head
    /// (never held in memory), for a script's `PUT`: the session, the same origin and the CSRF
    /// token in `X-CSRF-Token` are checked before a byte of the body is read.
    mutating func addStreaming(_ method: String, _ pattern: String, sink: @escaping BodySinkMaker, handler: @escaping Handler) {
        routes.append(Route(method: method, pattern: RoutePattern(pattern), access: .signedIn, handler: handler, bodySink: sink,
                            series: RouteSeries(method: method, template: pattern)))
    }

    /// Every page route's series, in registration order, for the metrics.
    var series: [RouteSeries] {
        routes.routes.map(\.series)
    }

    func respond(to request: HTTPRequest) -> HTTPOutcome {
        var session: BrowserSession?
        var matched: RouteSeries?
        do {
            session = try currentSession(request)
            if let inside = WebSpace.split(request.path) {
                return try respond(to: request, inSpace: inside.space, page: inside.page, session: session)
            }
            let (route, parameters) = try route(method: request.method, path: request.path)
            matched = route.series
            return try self.route(request, to: route, parameters: parameters, session: session).answered(by: route.series)
        } catch {
            var response = errorPage(for: error, request: request, session: session)
            response.route = matched
            return .now(response)
        }
    }

    /// The body a web request may send: a signed-in session's form up to the server's limit,
    /// the sign-in form up to `openBodyLimit`, nothing for anyone else.
    func admitBody(of head: HTTPRequest) -> BodyAdmission {
        let inside = WebSpace.split(head.path)
        guard case .found(let route, let parameters) = routes.lookup(method: head.method, path: inside?.page ?? head.path) else { return .accept(maxBytes: 0) }
        if !route.access.needsSession { return .accept(maxBytes: openBodyLimit) }
        let session = try? currentSession(head)
        guard let makeSink = route.bodySink else { return .accept(maxBytes: session == nil ? openBodyLimit : .max) }
        do {
            guard var session else { throw HTTPError(401, code: "unauthenticated", message: "Your session has ended: sign in again, then send the file again.") }
            try Self.checkScriptRequest(head, session: session)
            if let inside { session = try actingSession(session, in: inside.space, method: head.method, page: inside.page).session }
            let streamed = try makeSink(WebContext(request: head, parameters: parameters, form: WebForm(), session: session))
            return .stream(streamed.sink, maxBytes: streamed.maxBytes)
        } catch {
            return .refuse(HTTPError.answer(for: error, requestID: head.id, log: services.log))
        }
    }

    /// A script's request that changes something without a form: from this site, with the
    /// session's CSRF token in `X-CSRF-Token`.
    private static func checkScriptRequest(_ request: HTTPRequest, session: BrowserSession) throws(HTTPError) {
        guard WebSecurity.isSameOrigin(request) else { throw crossOrigin }
        guard WebSecurity.csrfMatches(request.headers[csrfHeader], secret: session.cookieSecret) else { throw csrfRefused }
    }

    private static let crossOrigin = HTTPError(403, code: "cross_origin", message: "This form was sent from another site, so it was refused.")
    private static let csrfRefused = HTTPError(403, code: "csrf", message: "This form has expired or did not come from this site. Go back, reload the page and try again.")

    /// A request refused for its body before it was read, as a page: above all an upload larger
    /// than the server reads, which says so and names the limit in words a person reads.
    func refusal(_ error: HTTPError, for head: HTTPRequest) -> HTTPResponse {
        let session = try? currentSession(head)
        guard error.status == 413 else { return errorPage(for: error, request: head, session: session) }
        let message: String
        if session == nil {
            message = "This form is larger than the server takes from someone who is not signed in. Sign in, then send it again."
        } else if head.path == "/upload" {
            let pages = FilePages(services: services)
            message = "This file is too large to upload in one piece: a file sent without JavaScript may have at most \(WebFormat.size(pages.uploadLimit)) "
                + "(with JavaScript on, the upload form sends files of up to \(WebFormat.size(pages.chunkedUploadLimit)) in parts). Nothing was stored."
        } else {
            message = "This form is too large: the server reads at most \(WebFormat.size(services.maxRequestBytes)) at once. Nothing was saved."
        }
        return errorPage(for: HTTPError(413, code: error.code, message: message), request: head, session: session)
    }

    func route(_ request: HTTPRequest, to route: Route, parameters: [String: String], session: BrowserSession?,
               space: WebSpace? = nil) throws -> HTTPOutcome {
        if route.access.needsSession && session == nil {
            return .now(Self.signInRedirect(for: request))
        }
        var form = WebForm()
        var file: WebUpload?
        if route.bodySink != nil, let session {
            try Self.checkScriptRequest(request, session: session)
        } else if route.method == "POST" {
            // Every state-changing request: same origin, then the session's CSRF token.
            guard WebSecurity.isSameOrigin(request) else { throw Self.crossOrigin }
            if let boundary = WebMultipart.boundary(contentType: request.headers["Content-Type"]) {
                // A file upload: its text fields become the form, its one file goes with it.
                let multipart = try WebMultipart(body: request.body, boundary: boundary)
                form = WebForm(fields: multipart.fields)
                file = multipart.file
            } else {
                guard let decoded = WebForm(body: request.body) else { throw HTTPError.badRequest("The form could not be read.") }
                form = decoded
            }
            if let session, route.access.needsSession, !WebSecurity.csrfMatches(form["csrf"], secret: session.cookieSecret) {
                throw Self.csrfRefused
            }
        }
        // The switcher's spaces, for any page a signed-in account sees (the home page included).
        let spaces = try session.map { try services.spaces.list(account: $0.memberID ?? $0.userID) } ?? []
        return try route.handler(WebContext(request: request, parameters: parameters, form: form, session: session, file: file,
                                            space: space, spaces: spaces))
    }

    /// The route `method` and `path` reach, with its path parameters.
    /// - Throws: 404, or 405 with the path's methods in `Allow`.
    func route(method: String, path: String) throws(HTTPError) -> (route: Route, parameters: [String: String]) {
        switch routes.lookup(method: method, path: path) {
        case .found(let route, let parameters):
            return (route, parameters)
        case .otherMethods(let allowed):
            if allowed.isEmpty { throw HTTPError.notFound("There is no page at this address.") }
            throw HTTPError.methodNotAllowed(allowed: Array(Set(allowed)).sorted())
        }
    }

    /// The browser session the request's cookie names, if it is live.
    func currentSession(_ request: HTTPRequest) throws -> BrowserSession? {
        guard let secret = WebCookie.value(WebCookie.session, in: request) else { return nil }
        return try services.sessions.browserSession(secret: secret, lifetimes: services.lifetimes)
    }

    /// To the sign-in page, coming back here afterwards (for a GET; a form goes home).
    static func signInRedirect(for request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return WebResponse.redirect(WebPath("/sign-in"))
        }
        var back = request.path
        if !request.query.isEmpty {
            back += "?" + request.query.sorted { $0.key < $1.key }.map { WebPath.encode($0.key) + "=" + WebPath.encode($0.value) }.joined(separator: "&")
        }
        return WebResponse.redirect(request.path == "/" ? WebPath("/sign-in") : WebPath("/sign-in").query([("next", back)]))
    }

    /// Any error as a page: `HTTPError` with its status and sentence, a note store error in
    /// words, anything else a logged 500 that says nothing internal.
    private func errorPage(for error: Error, request: HTTPRequest, session: BrowserSession?) -> HTTPResponse {
        let viewer = session.map { WebLayout.Viewer(username: $0.username, csrfToken: WebSecurity.csrfToken(forSecret: $0.cookieSecret)) }
        let answer: HTTPError
        switch error {
        case let error as HTTPError: answer = error
        case NoteStoreError.notFound: answer = .notFound("There is no such note.")
        case SpaceError.notFound: answer = WebSpace.notFound
        default: answer = HTTPError.answer(for: error, requestID: request.id, log: services.log)
        }
        return WebResponse.error(answer, viewer: viewer)
    }
}

/// `/assets/NAME.HASH.EXT`: the stylesheet and the scripts; and the page assets, KaTeX and
/// highlight.js from Debian's packages and the script that applies them, under their own
/// versioned names (`/assets/katex.HASH/fonts/KaTeX_Main-Regular.woff2`). Cached for a year.
struct AssetRoutes {
    func register(in app: inout WebApp) {
        app.add("GET", "/assets/*name", access: .anyone) { context in
            let name = context.parameters["name"] ?? ""
            var response: HTTPResponse
            if let asset = WebAsset.find(versionedName: name) {
                response = asset.response
            } else if let asset = PageAssets.installed.file(named: name) {
                response = WebAsset.immutable(asset.bytes, mediaType: asset.mediaType, hash: asset.hash)
            } else {
                throw HTTPError.notFound("There is no such file.")
            }
            WebSecurity.secure(&response, cacheable: true)
            return .now(response)
        }
    }
}
