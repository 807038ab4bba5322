import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Notes' own device authorization grant (RFC 8628), in process: the API's two endpoints with
/// an injected clock, and the approval pages driven by a browser-like client with a real
/// sign-in cookie and the CSRF token from the pages.
@Suite("Device authorization (RFC 8628)")
struct DeviceAuthorizationTests {
    private func start(_ app: TestApp, device: String = "notes on build-box", from address: String = "127.0.0.1") async throws
        -> DeviceAuthorizationResponse {
        let response = try await app.send("POST", "/v1/auth/device", json: DeviceAuthorizationRequest(device: device), from: address)
        #expect(response.status == 200, "\(response.text)")
        #expect(response.header("Cache-Control") == "no-store")
        return try response.decode(DeviceAuthorizationResponse.self)
    }

    private func poll(_ app: TestApp, _ codes: DeviceAuthorizationResponse) async throws -> TestAPIResponse {
        try await app.send("POST", "/v1/auth/token", json: DeviceTokenRequest(deviceCode: codes.deviceCode))
    }

    /// Types `code` on `/device` and presses `decision` on the confirmation page.
    private func decide(_ browser: WebBrowser, code: String, _ decision: String) async throws -> WebBrowser.Page {
        let entry = await browser.get("/device", query: ["code": code])
        #expect(entry.status == 200)
        let csrf = try #require(entry.field("csrf"))
        let confirmation = await browser.post("/device", [("csrf", csrf), ("code", code)])
        #expect(confirmation.status == 200, "\(confirmation.body)")
        #expect(confirmation.body.contains("notes on build-box"), "the confirmation names the device")
        return await browser.post("/device/decide", [("csrf", csrf), ("code", code), ("decision", decision)])
    }

    @Test("the codes: a long device code, an XXXX-XXXX user code of unambiguous letters, the server's /device page")
    func codesHaveTheirShape() async throws {
        try await TestApp.with { app in
            let codes = try await start(app)
            #expect(codes.deviceCode.hasPrefix("ndc_") && codes.deviceCode.count > 40)
            #expect(codes.userCode.wholeMatch(of: /[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}/) != nil, "\(codes.userCode)")
            #expect(codes.verificationUri.hasSuffix("/device"))
            #expect(codes.verificationUriComplete == codes.verificationUri + "?code=" + codes.userCode)
            #expect(codes.expiresIn == 600 && codes.interval == 5)
            #expect(DeviceCodeStore.normalize(" " + codes.userCode.lowercased().replacingOccurrences(of: "-", with: " ")) ==
                    codes.userCode.replacingOccurrences(of: "-", with: ""), "typing is forgiving: case, spaces and the dash")
            #expect(DeviceCodeStore.normalize("AAAA-AAAA") == nil, "vowels are not in the alphabet")
            // Only digests are stored: neither code appears in the database.
            let stored = try app.application.database.read { db in
                try db.query("SELECT device_code_hash, user_code_hash FROM device_codes") { [$0.bytes(0), $0.bytes(1)] }
            }
            #expect(stored.count == 1 && stored[0].allSatisfy { $0.count == 32 })
            let file = try await app.storedBytes()
            #expect(file.range(of: Data(codes.deviceCode.utf8)) == nil && file.range(of: Data(codes.userCode.replacingOccurrences(of: "-", with: "").utf8)) == nil)
        }
    }

    @Test("approved in the browser: the poll before says authorization_pending, the one after gets a session, a second exchange is refused")
    func approvedGivesOneSession() async throws {
        try await TestApp.with { app in
            let codes = try await start(app)
            let pending = try await poll(app, codes)
            #expect(pending.status == 400 && pending.errorCode == "authorization_pending", "\(pending.text)")

            let browser = WebBrowser(app)
            try await browser.signIn()
            let done = try await decide(browser, code: codes.userCode, "approve")
            #expect(done.status == 200 && done.body.contains("Device approved"), "\(done.body)")

            app.clock.advance(seconds: 5)
            let granted = try await poll(app, codes)
            #expect(granted.status == 200, "\(granted.text)")
            let tokens = try granted.decode(TokenResponse.self)
            #expect(tokens.user.username == TestAccount.username && tokens.refreshToken != nil)
            #expect(await app.me(tokens.accessToken).status == 200)
            let sessions = await browser.get("/account")
            #expect(sessions.body.contains("notes on build-box"), "the device is listed with the account's sessions")

            app.clock.advance(seconds: 5)
            let again = try await poll(app, codes)
            #expect(again.status == 400 && again.errorCode == "invalid_grant", "\(again.text)")
            // Nor can the same code be approved again.
            let reused = await browser.post("/device", [("csrf", try await browser.csrf(from: "/device")), ("code", codes.userCode)])
            #expect(reused.status == 404)
        }
    }

    @Test("denied in the browser: access_denied, and no session")
    func deniedGivesNoSession() async throws {
        try await TestApp.with { app in
            let codes = try await start(app)
            let browser = WebBrowser(app)
            try await browser.signIn()
            let sessionsBefore = try app.count("SELECT count(*) FROM sessions")
            let done = try await decide(browser, code: codes.userCode, "deny")
            #expect(done.status == 200 && done.body.contains("Device denied"), "\(done.body)")
            let answer = try await poll(app, codes)
            #expect(answer.status == 400 && answer.errorCode == "access_denied", "\(answer.text)")
            #expect(try app.count("SELECT count(*) FROM sessions") == sessionsBefore)
        }
    }

    @Test("a code left past its ten minutes answers expired_token, and can no longer be approved")
    func expiredCode() async throws {
        try await TestApp.with { app in
            let codes = try await start(app)
            app.clock.advance(seconds: 601)
            let answer = try await poll(app, codes)
            #expect(answer.status == 400 && answer.errorCode == "expired_token", "\(answer.text)")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let late = await browser.post("/device", [("csrf", try await browser.csrf(from: "/device")), ("code", codes.userCode)])
            #expect(late.status == 404 && late.body.contains("No device is waiting"))
        }
    }

    @Test("polling before the interval passed answers slow_down and adds five seconds to the interval")
    func pollingTooFastSlowsDown() async throws {
        try await TestApp.with { app in
            let codes = try await start(app)
            #expect(try await poll(app, codes).errorCode == "authorization_pending")
            let early = try await poll(app, codes)
            #expect(early.status == 400 && early.errorCode == "slow_down", "\(early.text)")
            app.clock.advance(seconds: 5)
            #expect(try await poll(app, codes).errorCode == "slow_down", "the interval is 10 seconds now")
            app.clock.advance(seconds: 15)
            #expect(try await poll(app, codes).errorCode == "authorization_pending")
        }
    }

    @Test("an unknown device code or grant type is refused")
    func unknownCodes() async throws {
        try await TestApp.with { app in
            let unknown = try await app.send("POST", "/v1/auth/token", json: DeviceTokenRequest(deviceCode: "ndc_" + String(repeating: "x", count: 43)))
            #expect(unknown.status == 400 && unknown.errorCode == "invalid_grant")
            let other = await app.send("POST", "/v1/auth/token", body: Data(#"{"grant_type":"password"}"#.utf8))
            #expect(other.status == 400 && other.errorCode == "unsupported_grant_type", "\(other.text)")
        }
    }

    @Test("codes typed are throttled per account and address; a right code in between wins no attempts back")
    func wrongCodesAreThrottled() async throws {
        try await TestApp.with { app in
            let codes = try await start(app)
            let browser = WebBrowser(app)
            try await browser.signIn()
            let csrf = try await browser.csrf(from: "/device")
            for guess in 0..<9 {
                let wrong = await browser.post("/device", [("csrf", csrf), ("code", "BBBB-BBB" + String(Array("CDFGHJKLMN")[guess]))])
                #expect(wrong.status == 404, "guess \(guess) answered \(wrong.status)")
            }
            #expect(await browser.post("/device", [("csrf", csrf), ("code", codes.userCode)]).status == 200)
            let throttled = await browser.post("/device", [("csrf", csrf), ("code", codes.userCode)])
            #expect(throttled.status == 429 && throttled.header("Retry-After") != nil, "\(throttled.status)")
            let decide = await browser.post("/device/decide", [("csrf", csrf), ("code", codes.userCode), ("decision", "approve")])
            #expect(decide.status == 429, "deciding counts as a guess too")
            #expect(try await poll(app, codes).errorCode == "authorization_pending", "nothing was approved")
            // The window over, the owner's next right code is taken again.
            app.clock.advance(seconds: 15 * 60 + 1)
            let fresh = try await start(app)
            let later = await browser.post("/device", [("csrf", csrf), ("code", fresh.userCode)])
            #expect(later.status == 200, "\(later.status)")
        }
    }

    @Test("/device needs a signed-in browser: others go to sign in and come back with the code; posts need CSRF")
    func pageNeedsSignInAndCSRF() async throws {
        try await TestApp.with { app in
            let codes = try await start(app)
            let browser = WebBrowser(app)
            let away = await browser.get("/device", query: ["code": codes.userCode])
            #expect(away.status == 303)
            let location = try #require(away.header("Location"))
            #expect(location.hasPrefix("/sign-in?next=%2Fdevice%3Fcode%3D"), "\(location)")
            try await browser.signIn()
            let forged = await browser.post("/device/decide", [("csrf", "forged"), ("code", codes.userCode), ("decision", "approve")])
            #expect(forged.status == 403)
            let otherSite = await browser.post("/device/decide", [("csrf", try await browser.csrf(from: "/device")), ("code", codes.userCode),
                                                                  ("decision", "approve")], headers: ["Origin": "https://evil.example"])
            #expect(otherSite.status == 403)
            #expect(try await poll(app, codes).errorCode == "authorization_pending")
        }
    }
}
