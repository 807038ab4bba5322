import NotesCore

/// `/sign-in` and `/sign-out`: a browser session from the account's username and password,
/// checked exactly as `POST /v1/auth/login` checks them (same throttle, same argon2id pool, same
/// answer for unknown users and wrong passwords).
struct SignInPages: Sendable {
    let services: WebServices

    /// Other ways to sign in, shown under the form: a "Sign in with <provider>" link for each
    /// configured identity provider (`GET /auth/oidc/start`), carrying `next` along.
    func alternatives(next: WebPath?) -> [HTML] {
        services.signIn.providers.map { provider in
            var query = [("provider", provider.id)]
            if let next { query.append(("next", next.value)) }
            return "<a class=\"button secondary\" href=\"\(WebPath("/auth/oidc/start").query(query))\">Sign in with \(provider.displayName)</a>"
        }
    }

    /// The sentence for `?failed=CODE&provider=ID`, where a sign-in with a provider sends the
    /// browser when it ended without a session; nil for anything else.
    func failureMessage(_ query: [String: String]) -> String? {
        guard let failure = query["failed"].flatMap(BrowserSignIn.Failure.init(rawValue:)) else { return nil }
        return failure.message(provider: query["provider"].flatMap { services.signIn.provider($0)?.displayName })
    }

    func register(in app: inout WebApp) {
        app.add("GET", "/", access: .anyone) { context in
            guard context.session != nil else { return .now(signInPage(context.request, next: nil)) }
            return .now(try NotePages(services: services).home(context))
        }
        app.add("GET", "/sign-in", access: .anyone) { context in
            if context.session != nil { return .now(WebResponse.redirect(WebPath("/"))) }
            return .now(signInPage(context.request, next: context.request.query["next"].flatMap(WebPath.init(returnedPath:)),
                                   error: failureMessage(context.request.query)))
        }
        app.add("POST", "/sign-in", access: .anyone) { context in try signIn(context) }
        app.add("POST", "/sign-out") { context in
            let session = try context.signedIn()
            try services.sessions.revoke(sessionID: session.sessionID)
            var response = WebResponse.redirect(WebPath("/sign-in"))
            response.headers.add(name: "Set-Cookie", value: WebCookie.clear(WebCookie.session, secure: context.request.isSecure))
            return .now(response)
        }
    }

    /// The sign-in form, with a fresh form secret in its own cookie for the CSRF token.
    func signInPage(_ request: HTTPRequest, next: WebPath?, username: String = "", error: String? = nil, status: Int = 200) -> HTTPResponse {
        let secret = WebCookie.value(WebCookie.signIn, in: request).flatMap { $0.hasPrefix("nwf_") && $0.utf8.count == 47 ? $0 : nil }
            ?? SecureRandom.token(prefix: "nwf_")
        let nextField: HTML = next.map { "<input type=\"hidden\" name=\"next\" value=\"\($0)\">" } ?? .empty
        let providers = alternatives(next: next)
        let others: HTML = providers.isEmpty ? .empty : "<div class=\"provider-buttons\">\(providers)</div>"
        var response = WebResponse.page(WebLayout(title: "Sign in"), """
            <div class="narrow">
            <h1>Notes</h1>
            <div class="card">
            <h2>Sign in to your notes</h2>
            \(error.map { WebFormat.notice($0, error: true) } ?? .empty)
            <form action="/sign-in" method="post">
            <input type="hidden" name="csrf" value="\(WebSecurity.csrfToken(forSecret: secret))">
            \(nextField)
            <label for="username">Username</label>
            <input type="text" id="username" name="username" value="\(username)" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus>
            <label for="password">Password</label>
            <input type="password" id="password" name="password" autocomplete="current-password" required>
            <div class="form-actions"><button type="submit">Sign in</button></div>
            </form>
            \(others)
            </div>
            <p class="muted small">No account? The server's administrator creates one with <code>notes-server user add</code>.</p>
            </div>
            """, status: status)
        response.headers.add(name: "Set-Cookie", value: WebCookie.set(WebCookie.signIn, secret, secure: request.isSecure, path: "/sign-in", maxAge: 3600))
        return response
    }

    private func signIn(_ context: WebContext) throws -> HTTPOutcome {
        let request = context.request
        guard let secret = WebCookie.value(WebCookie.signIn, in: request), WebSecurity.csrfMatches(context.form["csrf"], secret: secret) else {
            return .now(signInPage(request, next: nil, error: "The sign-in form expired. Please try again.", status: 403))
        }
        let username = context.form["username"] ?? ""
        let password = context.form["password"] ?? ""
        let next = context.form["next"].flatMap(WebPath.init(returnedPath:)) ?? WebPath("/")
        guard !username.isEmpty, !password.isEmpty, password.utf8.count <= PasswordHash.maxPasswordBytes,
              UserStore.normalized(username).utf8.count <= UserStore.maxUsernameBytes else {
            return .now(signInPage(request, next: next, username: username, error: "The username or password is wrong.", status: 401))
        }
        let attempt: LoginThrottle.Attempt
        do {
            attempt = try services.throttle.begin(username: username, address: request.remoteAddress)
        } catch {
            var response = signInPage(request, next: next, username: username, error: error.webMessage, status: error.httpError.status)
            response.headers["Retry-After"] = String(error.retryAfterSeconds)
            return .now(response)
        }
        return .later {
            do {
                let user = try services.users.find(username: username)
                let matches = try await services.passwords.verify(password, against: user?.passwordHash)
                guard matches, let user else {
                    services.throttle.failed(attempt)
                    return signInPage(request, next: next, username: username, error: "The username or password is wrong.", status: 401)
                }
                guard !user.disabled else {
                    return signInPage(request, next: next, username: username, error: AuthController.accountDisabled.message, status: 403)
                }
                services.throttle.succeeded(attempt)
                let cookie = try services.sessions.createBrowserSession(userID: user.id, device: Self.deviceName(request))
                var response = WebResponse.redirect(next)
                response.headers.add(name: "Set-Cookie", value: WebCookie.set(WebCookie.session, cookie, secure: request.isSecure))
                response.headers.add(name: "Set-Cookie", value: WebCookie.clear(WebCookie.signIn, secure: request.isSecure, path: "/sign-in"))
                return response
            } catch {
                return WebResponse.error(HTTPError.answer(for: error, requestID: request.id, log: services.log), viewer: nil)
            }
        }
    }

    /// A name for the sessions list: "Web: Firefox on Linux", from the browser's own claim.
    static func deviceName(_ request: HTTPRequest) -> String {
        let agent = request.headers["User-Agent"] ?? ""
        let browser = [("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari")]
            .first { agent.contains($0.0) }?.1 ?? "a browser"
        let system = [("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"), ("Mac OS X", "macOS"), ("Windows", "Windows"),
                      ("Linux", "Linux")].first { agent.contains($0.0) }?.1
        return Label.clean("Web: " + browser + (system.map { " on " + $0 } ?? ""))
    }
}
