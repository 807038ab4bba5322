import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// A pretend browser for in-process web tests: sends requests through the application's
/// `SiteResponder` (pages and API, as the HTTP server would), keeps cookies like a browser, and
/// sends `Origin` on posts as Chromium does.
final class WebBrowser: @unchecked Sendable {
    struct Page {
        let status: Int
        let headers: HTTPHeaders
        let body: String

        func header(_ name: String) -> String? { headers[name] }
        var setCookies: [String] { headers.values(for: "Set-Cookie") }

        /// The value of the first `<input name="NAME" value="...">`.
        func field(_ name: String) -> String? {
            guard let start = body.range(of: "name=\"\(name)\" value=\"") else { return nil }
            return String(body[start.upperBound...].prefix { $0 != "\"" })
        }
    }

    let app: TestApp
    /// The origin this browser says it is on.
    var origin = "http://notes.test"
    var host = "notes.test"
    var isSecure = false
    private(set) var cookies: [String: String] = [:]

    init(_ app: TestApp) {
        self.app = app
    }

    func get(_ path: String, query: [String: String] = [:]) async -> Page {
        await send("GET", path, query: query)
    }

    /// Posts `fields` as a form, with this browser's `Origin` unless `headers` says otherwise.
    func post(_ path: String, _ fields: [(String, String)], headers extra: [String: String]? = nil) async -> Page {
        let body = fields.map { WebPath.encode($0.0) + "=" + WebPath.encode($0.1) }.joined(separator: "&")
        return await send("POST", path, body: Array(body.utf8), headers: extra ?? ["Origin": origin])
    }

    func send(_ method: String, _ path: String, query: [String: String] = [:], body: [UInt8] = [], headers extra: [String: String] = [:]) async -> Page {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        if !cookies.isEmpty { headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")) }
        if !body.isEmpty { headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded") }
        for (name, value) in extra { headers.add(name: name, value: value) }
        let request = HTTPRequest(method: method, path: path, query: query, headers: headers, body: body, isSecure: isSecure)
        let response: HTTPResponse
        switch app.application.responder.respond(to: request) {
        case .now(let answer): response = answer
        case .later(let work): response = await work()
        }
        for cookie in response.headers.values(for: "Set-Cookie") {
            let pair = cookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0]), value = pair.count > 1 ? String(pair[1]) : ""
            cookies[name] = cookie.contains("Max-Age=0") ? nil : value
        }
        return Page(status: response.status, headers: response.headers, body: String(decoding: response.body, as: UTF8.self))
    }

    /// Signs in through the form; the answer is the form's 303 (or the page that refused).
    @discardableResult
    func signIn(_ username: String = TestAccount.username, _ password: String = TestAccount.password) async throws -> Page {
        let form = await get("/sign-in")
        let csrf = try #require(form.field("csrf"))
        return await post("/sign-in", [("csrf", csrf), ("username", username), ("password", password)])
    }

    /// The CSRF token on a signed-in page.
    func csrf(from path: String = "/") async throws -> String {
        try #require(await get(path).field("csrf"), "no CSRF field on \(path)")
    }

    /// Forgets or replaces a cookie, as a tampering client would.
    func setCookie(_ name: String, _ value: String?) {
        cookies[name] = value
    }
}

extension TestApp {
    /// Creates a note for `username` straight in the store and returns its id.
    func addNote(_ path: String, _ content: String, for username: String = TestAccount.username) throws -> NoteID {
        let users = UserStore(database: application.database, clock: clock.serverClock)
        let user = try #require(try users.find(username: username))
        let id = NoteID()
        _ = try application.notes.put(userID: user.id, id: id, path: try NotePath(path), content: content, precondition: .absent)
        return id
    }

    /// The note's current content and revision.
    func note(_ id: NoteID, for username: String = TestAccount.username) throws -> NoteRecord? {
        let user = try #require(try UserStore(database: application.database, clock: clock.serverClock).find(username: username))
        return try application.notes.note(userID: user.id, id: id)
    }
}
