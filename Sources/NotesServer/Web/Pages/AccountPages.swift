import NotesCore

/// `/account`: the signed-in devices and browsers (end one, or all), personal access tokens
/// (create, with the secret shown once; revoke) and the password (for accounts that have one:
/// an account made by an identity provider has none, and is not offered a form to change it).
struct AccountPages: Sendable {
    let services: WebServices

    func register(in app: inout WebApp) {
        app.add("GET", "/account") { context in
            let notice: HTML = switch context.request.query["done"] {
            case "revoked": WebFormat.notice("The session was ended.")
            case "token-revoked": WebFormat.notice("The token was revoked.")
            case "unpublished": WebFormat.notice("The link was revoked: it no longer opens the note.")
            case "password": WebFormat.notice("Password changed. Every other session and every personal token was signed out.")
            default: .empty
            }
            return .now(try page(context, notice: notice))
        }
        app.add("POST", "/account/sessions/:session/revoke") { context in
            let session = try context.signedIn()
            guard let id = context.parameters["session"].flatMap({ Int64($0) }) else { throw HTTPError.notFound() }
            try services.sessions.revoke(sessionID: id, of: session.userID)
            if id == session.sessionID { return .now(signedOut(context)) }
            return .now(WebResponse.redirect(WebPath("/account").query([("done", "revoked")])))
        }
        app.add("POST", "/account/sessions/revoke-all") { context in
            try services.sessions.revokeAll(userID: try context.signedIn().userID)
            return .now(signedOut(context))
        }
        app.add("POST", "/account/tokens") { context in .now(try createToken(context)) }
        app.add("POST", "/account/tokens/:token/revoke") { context in
            let session = try context.signedIn()
            guard let id = context.parameters["token"], try services.tokens.revoke(userID: session.userID, id: id) else {
                throw HTTPError.notFound("You have no personal token with this id.")
            }
            return .now(WebResponse.redirect(WebPath("/account").query([("done", "token-revoked")])))
        }
        app.add("POST", "/account/password") { context in try changePassword(context) }
    }

    private func signedOut(_ context: WebContext) -> HTTPResponse {
        var response = WebResponse.redirect(WebPath("/sign-in"))
        response.headers.add(name: "Set-Cookie", value: WebCookie.clear(WebCookie.session, secure: context.request.isSecure))
        return response
    }

    func page(_ context: WebContext, notice: HTML = .empty, status: Int = 200) throws -> HTTPResponse {
        let session = try context.signedIn()
        let token = context.csrfToken
        let sessions = try services.sessions.activeSessions(of: session.userID, browserLifetimes: services.lifetimes)
        let sessionItems = sessions.map { item -> HTML in
            let this = item.id == session.sessionID
            return """
                <li><span><span class="title">\(item.device.isEmpty ? "Unnamed device" : item.device)</span>\
                \(this ? " <span class=\"muted small\">(this browser)</span>" as HTML : .empty)\
                <br><span class="muted small">\(item.isBrowser ? "Browser" : "Device") · last used \(WebFormat.time(item.lastUsedAt))</span></span>\
                <form action="\(WebPath("/account/sessions").appending(String(item.id)).appending("revoke"))" method="post">\(WebFormat.csrfField(token))\
                <button type="submit" class="secondary">\(this ? "Sign out" : "End session")</button></form></li>
                """
        }
        let tokens = try services.tokens.list(userID: session.userID)
        let tokenItems = tokens.map { item -> HTML in
            """
            <li><span><span class="title">\(item.name)</span> <span class="muted small">\(item.scope.rawValue)</span>\
            <br><span class="muted small">created \(WebFormat.time(item.createdAt))\(item.expiresAt.map { " · expires " as HTML + WebFormat.time($0) } ?? .empty)\
            \(item.lastUsedAt.map { " · last used " as HTML + WebFormat.time($0) } ?? " · never used")</span></span>\
            <form action="\(WebPath("/account/tokens").appending(item.id).appending("revoke"))" method="post">\(WebFormat.csrfField(token))\
            <button type="submit" class="danger">Revoke</button></form></li>
            """
        }
        let publications = try services.publications.list(userID: session.userID)
        let hasPassword = try services.users.find(id: session.userID).map(UserStore.hasPassword) ?? false
        let publicationItems = publications.map { item -> HTML in
            """
            <li><span><a class="title" href="\(WebFormat.notePath(item.noteID))">\(item.path)</a>\
            <br><span class="muted small">published \(WebFormat.time(item.createdAt))\
            \(item.expiresAt.map { " · expires " as HTML + WebFormat.time($0) } ?? " · until revoked")\
            \(item.indexable ? " · search engines may index it" : "")</span></span>\
            <form action="\(WebPath("/account/publications").appending(item.noteID.value).appending("revoke"))" method="post">\(WebFormat.csrfField(token))\
            <button type="submit" class="danger">Revoke</button></form></li>
            """
        }
        return WebResponse.page(context.layout("Account", .account), """
            \(notice)
            <div class="page-head"><h1>Account: \(session.username)</h1></div>
            <div class="grid halves">
            <section class="card" aria-labelledby="sessions-heading">
            <h2 id="sessions-heading">Signed-in devices and browsers</h2>
            <ul class="list">\(sessionItems)</ul>
            <form action="/account/sessions/revoke-all" method="post" class="form-actions">\(WebFormat.csrfField(token))\
            <button type="submit" class="danger">Sign out everywhere</button></form>
            </section>
            <section class="card" aria-labelledby="tokens-heading">
            <h2 id="tokens-heading">Personal access tokens</h2>
            <p class="muted small">For scripts: <code>NOTES_TOKEN=… notes ls</code>. A token works until it expires or is revoked.</p>
            <p class="muted small" id="webdav-help">For WebDAV apps (Finder, Windows Explorer, rclone, Obsidian's Remotely Save): \
            connect to <code>\(Self.webDAVAddress(context.request))</code> as <code>\(session.username)</code> with a token as the app \
            password, a read token to read, a write token to change notes. Your account password is never accepted there.</p>
            \(tokens.isEmpty ? "<p class=\"empty\">No tokens.</p>" : "<ul class=\"list\">\(tokenItems)</ul>" as HTML)
            <form action="/account/tokens" method="post">\(WebFormat.csrfField(token))
            <label for="token-name">New token's name</label>
            <input type="text" id="token-name" name="name" required maxlength="\(Label.maxCharacters)" placeholder="backup script">
            <label for="token-scope">It may</label>
            <select id="token-scope" name="scope"><option value="read">read notes</option><option value="write">read and change notes</option></select>
            <label for="token-expiry">Expires</label>
            <select id="token-expiry" name="expires"><option value="2592000">in 30 days</option><option value="7776000">in 90 days</option>\
            <option value="31536000">in a year</option><option value="never">never</option></select>
            <div class="form-actions"><button type="submit">Create token</button></div>
            </form>
            </section>
            <section class="card" aria-labelledby="publications-heading">
            <h2 id="publications-heading">Published notes</h2>
            <p class="muted small">Anyone with a note's link can read it. Links are shown only when made; revoking one ends it at once.</p>
            \(publications.isEmpty ? "<p class=\"empty\">No published notes. Publish one from its page.</p>" : "<ul class=\"list\">\(publicationItems)</ul>" as HTML)
            </section>
            \(hasPassword ? passwordForm(username: session.username, token: token) : Self.noPassword)
            </div>
            """, status: status)
    }

    /// The personal space's WebDAV address as this browser reached the server (docs/architecture.md §3.7).
    static func webDAVAddress(_ request: HTTPRequest) -> String {
        (request.isSecure ? "https://" : "http://") + (request.headers["Host"] ?? "localhost") + DAVLocation(space: DAVSpace.personalName, path: "").href(folder: true)
    }

    private func passwordForm(username: String, token: String) -> HTML {
        """
        <section class="card" aria-labelledby="password-heading">
        <h2 id="password-heading">Change password</h2>
        <form action="/account/password" method="post">\(WebFormat.csrfField(token))
        <input type="text" name="username" value="\(username)" autocomplete="username" hidden>
        <label for="current-password">Current password</label>
        <input type="password" id="current-password" name="current" autocomplete="current-password" required>
        <label for="new-password">New password</label>
        <input type="password" id="new-password" name="new" autocomplete="new-password" required minlength="8" aria-describedby="password-hint">
        <label for="repeat-password">New password again</label>
        <input type="password" id="repeat-password" name="repeat" autocomplete="new-password" required minlength="8">
        <p class="hint" id="password-hint">At least 8 characters. Every other session and every personal token is signed out.</p>
        <div class="form-actions"><button type="submit">Change password</button></div>
        </form>
        </section>
        """
    }

    /// In place of the password form for an account made by an identity provider: there is no
    /// password to change (and none to check a change against).
    private static let noPassword: HTML = """
        <section class="card" aria-labelledby="password-heading">
        <h2 id="password-heading">Password</h2>
        <p>\(noPasswordText)</p>
        </section>
        """

    private static let noPasswordText = """
        This account signs in through an identity provider and has no password. \
        The server's administrator can give it one (notes-server user passwd).
        """

    /// Makes a token and shows its secret this once, in this answer only (never cached).
    private func createToken(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let name = context.form["name"] ?? ""
        guard Label.isValid(name) else {
            return try page(context, notice: WebFormat.notice("A token's name is 1 to \(Label.maxCharacters) characters, without control characters.", error: true), status: 422)
        }
        let scope: TokenScope = context.form["scope"] == "write" ? .write : .read
        let expiry = context.form["expires"].flatMap { Int($0) }.flatMap { (1...PersonalTokenStore.maxLifetimeSeconds).contains($0) ? $0 : nil }
        let secret: String
        do {
            (_, secret) = try services.tokens.create(userID: session.userID, name: name, scope: scope, expiresInSeconds: expiry)
        } catch PersonalTokenError.tooMany(let limit) {
            return try page(context, notice: WebFormat.notice("You have \(limit) live tokens, the most allowed; revoke one first.", error: true), status: 422)
        }
        return try page(context, notice: """
            <div class="notice" role="status"><p><strong>Token “\(name)” created.</strong> Copy it now: it is shown only this once.</p>
            <code class="secret" id="new-token">\(secret)</code></div>
            """, status: 201)
    }

    /// Checks the current password (throttled like a sign-in), stores the new one, ends every
    /// session and token (as `notes-server user passwd` does), and signs this browser in again.
    private func changePassword(_ context: WebContext) throws -> HTTPOutcome {
        let session = try context.signedIn()
        let current = context.form["current"] ?? "", new = context.form["new"] ?? "", repeated = context.form["repeat"] ?? ""
        func refuse(_ message: String, _ status: Int = 422) throws -> HTTPOutcome {
            .now(try page(context, notice: WebFormat.notice(message, error: true), status: status))
        }
        // Checked before the throttle: an account without a password has nothing to guess.
        guard try services.users.find(id: session.userID).map(UserStore.hasPassword) ?? false else {
            return try refuse(Self.noPasswordText, 409)
        }
        guard new == repeated else { return try refuse("The two new passwords differ.") }
        guard new.count >= 8 else { return try refuse("A password needs at least 8 characters.") }
        guard new.utf8.count <= PasswordHash.maxPasswordBytes, current.utf8.count <= PasswordHash.maxPasswordBytes else {
            return try refuse("That password is too long.")
        }
        let attempt: LoginThrottle.Attempt
        do {
            attempt = try services.throttle.begin(username: session.username, address: context.request.remoteAddress)
        } catch {
            return try refuse(error.webMessage, 429)
        }
        let services = services
        return .later {
            do {
                guard let user = try services.users.find(id: session.userID),
                      try await services.passwords.verify(current, against: user.passwordHash) else {
                    services.throttle.failed(attempt)
                    return try page(context, notice: WebFormat.notice("The current password is wrong.", error: true), status: 403)
                }
                services.throttle.succeeded(attempt)
                let hash = try await services.passwords.hash(new)
                try services.users.setPassword(username: user.username, passwordHash: hash)
                let cookie = try services.sessions.createBrowserSession(userID: user.id, device: SignInPages.deviceName(context.request))
                var response = WebResponse.redirect(WebPath("/account").query([("done", "password")]))
                response.headers.add(name: "Set-Cookie", value: WebCookie.set(WebCookie.session, cookie, secure: context.request.isSecure))
                return response
            } catch {
                return WebResponse.error(HTTPError.answer(for: error, requestID: context.request.id, log: services.log), viewer: nil)
            }
        }
    }
}
