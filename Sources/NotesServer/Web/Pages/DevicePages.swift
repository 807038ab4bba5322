import NotesCore

/// `/device`: where a person approves `notes login --device` (RFC 8628's verification page).
/// Signed in by any method, they type the code the device shows (or arrive with it filled in
/// from `verification_uri_complete`), see which device asked and from where, and approve or
/// deny it. The code is only ever read from a form post or prefilled, never acted on from a
/// link: a page elsewhere cannot approve a device for someone who merely followed it.
///
/// Codes typed are throttled per account and address, and per address, with a throttle of
/// their own (the sign-in throttle's rules, its own counts). Every code counts, right or wrong:
/// a guesser holding a code of their own cannot win attempts back by typing it in between. A
/// person needs two per device (look up, decide); a guesser gets ten per quarter hour, where
/// finding one of the few live codes among 20^8 would take billions.
struct DevicePages: Sendable {
    let services: WebServices
    let devices: DeviceCodeStore
    let throttle: LoginThrottle

    init(services: WebServices) {
        self.services = services
        // The same database and clock as every other store of the web app.
        devices = DeviceCodeStore(database: services.users.database, clock: services.users.clock)
        throttle = LoginThrottle(limits: .init(perAccountAndAddress: 10, perAddress: 30, windowSeconds: 15 * 60,
                                               slowdownAfter: 20, maxDelaySeconds: 60), clock: services.users.clock,
                                 shared: services.users.database.sharedByServers, scope: "device")
    }

    func register(in app: inout WebApp) {
        app.add("GET", "/device") { context in
            .now(entryPage(context, code: context.request.query["code"] ?? ""))
        }
        app.add("POST", "/device") { context in
            let code = context.form["code"] ?? ""
            return .now(try checked(context, code: code) { pending in confirmationPage(context, code: code, pending) })
        }
        app.add("POST", "/device/decide") { context in
            let session = try context.signedIn()
            let code = context.form["code"] ?? ""
            let approve = context.form["decision"] == "approve"
            return .now(try checked(context, code: code) { pending in
                guard try devices.decide(userCode: code, approve ? .approve(userID: session.userID) : .deny) else {
                    return entryPage(context, code: "", error: "That code is no longer waiting: it expired or was already answered.",
                                     status: 409)
                }
                services.log("device code approval: \(session.username) \(approve ? "approved" : "denied") a sign-in for \(pending.deviceName)")
                return donePage(context, approved: approve, pending)
            })
        }
    }

    /// Counts the attempt, looks the code up, and hands a live one to `body`; a wrong code
    /// (or a throttled one) gets the entry form back with the reason.
    private func checked(_ context: WebContext, code: String, _ body: (PendingDevice) throws -> HTTPResponse) throws -> HTTPResponse {
        let session = try context.signedIn()
        do {
            _ = try throttle.begin(username: session.username, address: context.request.remoteAddress)
        } catch {
            let wait = String(error.retryAfterSeconds)
            var response = entryPage(context, code: "", error: "Too many codes tried. Try again in \(wait) seconds.", status: 429)
            response.headers["Retry-After"] = wait
            return response
        }
        guard let pending = try devices.pending(userCode: code) else {
            return entryPage(context, code: code, error: "No device is waiting with that code. Check it and try again; a code lasts ten minutes.",
                             status: 404)
        }
        return try body(pending)
    }

    private func entryPage(_ context: WebContext, code: String, error: String? = nil, status: Int = 200) -> HTTPResponse {
        let shown = DeviceCodeStore.normalize(code).map(DeviceCodeStore.display) ?? String(code.prefix(16))
        return WebResponse.page(context.layout("Sign in a device"), """
            <div class="narrow card">
            <h1>Sign in a device</h1>
            \(error.map { WebFormat.notice($0, error: true) } ?? .empty)
            <p>Enter the code that <code>notes login --device</code> shows on the device.</p>
            <form action="/device" method="post">\(WebFormat.csrfField(context.csrfToken))
            <label for="device-code">Code</label>
            <input type="text" id="device-code" name="code" value="\(shown)" placeholder="BCDF-GHJK" autocomplete="off" \
            autocapitalize="characters" spellcheck="false" maxlength="16" required autofocus>
            <div class="form-actions"><button type="submit">Continue</button></div>
            </form>
            </div>
            """, status: status)
    }

    private func confirmationPage(_ context: WebContext, code: String, _ pending: PendingDevice) -> HTTPResponse {
        let token = context.csrfToken
        let normalized = DeviceCodeStore.normalize(code) ?? ""
        return WebResponse.page(context.layout("Approve this device?"), """
            <div class="narrow card">
            <h1>Approve this device?</h1>
            <p><strong id="device-name">\(pending.deviceName)</strong> asks to sign in to your notes as \
            <strong>\(context.session?.username ?? "")</strong>.</p>
            <p class="muted small">Asked from \(pending.clientAddress) at \(WebFormat.time(pending.createdAt)) with the code \
            <code>\(DeviceCodeStore.display(normalized))</code>. Approve only a device you are signing in yourself, right now: \
            it gets full access to your notes.</p>
            <form action="/device/decide" method="post" class="form-actions">\(WebFormat.csrfField(token))\
            <input type="hidden" name="code" value="\(normalized)">\
            <button type="submit" name="decision" value="approve" id="approve">Approve</button> \
            <button type="submit" name="decision" value="deny" id="deny" class="danger">Deny</button></form>
            </div>
            """)
    }

    private func donePage(_ context: WebContext, approved: Bool, _ pending: PendingDevice) -> HTTPResponse {
        WebResponse.page(context.layout(approved ? "Device approved" : "Device denied"), """
            <div class="narrow card">
            <h1>\(approved ? "Device approved" : "Device denied")</h1>
            <p id="device-result">\(approved ? "\(pending.deviceName) is signed in; you can return to it." : "\(pending.deviceName) was not signed in.")</p>
            <p><a href="/account">Your signed-in devices</a> · <a href="/">Your notes</a></p>
            </div>
            """)
    }
}
