import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// `notes login --device` end to end: the real `notes` and `notes-server` binaries; the person
/// approving is played over HTTP by a browser-like client that signs in through the web app's
/// form (a real session cookie, the CSRF token from the pages, the site's own `Origin`).
@Suite("notes login --device")
struct DeviceLoginTests {
    @Test("a code approved in the web app ends notes login --device signed in; whoami works")
    func approvedInTheWebApp() async throws {
        try await LiveServer.with(account: .added) { harness in
            let login = try DeviceLogin(harness)
            let code = try await login.userCode()
            #expect(login.output.contains(harness.serverURL + "/device?code=" + code), "the complete URL is shown: \(login.output)")
            let browser = try await WebApprover(harness.server.baseURL, username: TestAccount.username, password: TestAccount.password)
            let result = try await browser.decide(code: code, "approve")
            #expect(result.contains("Device approved"), "\(result)")
            let status = await login.finish()
            #expect(status == 0, "\(login.output)")
            #expect(login.output.contains("Signed in to \(harness.serverURL) as \(TestAccount.username)."), "\(login.output)")
            let whoami = try await harness.notes(["whoami"])
            #expect(whoami.exitCode == 0 && whoami.stdout.contains(TestAccount.username), "\(whoami.stderr)")
        }
    }

    @Test("a code denied in the web app ends notes login --device with a clear message, exit 1 and no session")
    func deniedInTheWebApp() async throws {
        try await LiveServer.with(account: .added) { harness in
            let login = try DeviceLogin(harness)
            let code = try await login.userCode()
            let browser = try await WebApprover(harness.server.baseURL, username: TestAccount.username, password: TestAccount.password)
            _ = try await browser.decide(code: code, "deny")
            let status = await login.finish()
            #expect(status == 1, "\(login.output)")
            #expect(login.output.contains("denied"), "\(login.output)")
            #expect(!FileManager.default.fileExists(atPath: harness.credentialsPath), "no session was stored")
        }
    }

    @Test("Ctrl-C stops notes login --device while it waits, with nothing stored")
    func interruptedCleanly() async throws {
        try await LiveServer.with(account: .added) { harness in
            let login = try DeviceLogin(harness)
            _ = try await login.userCode()
            login.process.send(SIGINT)
            let status = await login.finish()
            #expect(status == 1, "\(login.output)")
            #expect(login.output.contains("nothing was stored"), "\(login.output)")
            #expect(!FileManager.default.fileExists(atPath: harness.credentialsPath))
        }
    }

    @Test("--device does not go with --web, --username or --password-stdin")
    func optionConflicts() async throws {
        try await LiveServer.with(account: .added) { harness in
            for extra in [["--web"], ["--username", "ada"], ["--password-stdin"]] {
                let result = try await harness.notes(["login", "--device", harness.serverURL] + extra)
                #expect(result.exitCode == 2, "\(extra): \(result.stderr)")
            }
        }
    }
}

/// A running `notes login --device SERVER`, its stderr collected as it comes.
private final class DeviceLogin: Sendable {
    let process: ChildProcess
    private let collected: PipeCollector

    init(_ harness: LiveServer) throws {
        process = try ChildProcess(BuiltProducts.client, ["login", "--device", harness.serverURL, "--device-name", "test box"],
                                   environment: harness.environment, stderr: .pipe)
        collected = PipeCollector(process.standardError!)  // a pipe, as asked just above
    }

    var output: String { collected.text }

    /// The code the command printed, once it has.
    func userCode() async throws -> String {
        var code: String?
        let printed = try await waitUntil(timeout: 60) {
            code = self.output.firstMatch(of: /enter the code: ([A-Z]{4}-[A-Z]{4})/).map { String($0.1) }
            return code != nil
        }
        #expect(printed, "notes login --device printed no code: \(output)")
        return try #require(code)
    }

    /// Waits for the command to end (killed after two minutes, so a broken flow fails instead of hanging).
    func finish() async -> Int32 {
        let status = await process.wait(timeout: .seconds(120))
        if status == nil { process.send(SIGKILL) }
        let final = await process.wait()
        await collected.finished()
        return status ?? final
    }
}

/// A person at a browser: signs in through the web app's form and answers on `/device`. Keeps
/// the session cookie, sends the CSRF token from each page and the site's own `Origin`, and
/// follows no redirect (so the sign-in's cookie is seen).
private struct WebApprover {
    let baseURL: URL
    let cookie: String

    init(_ baseURL: URL, username: String, password: String) async throws {
        self.baseURL = baseURL
        let form = try await Self.send(baseURL, "GET", "/sign-in", cookie: nil)
        let formCookie = try #require(Self.cookie("notes_signin", in: form.response))
        let csrf = try #require(Self.field("csrf", in: form.body))
        let signedIn = try await Self.send(baseURL, "POST", "/sign-in", cookie: "notes_signin=\(formCookie)",
                                           form: [("csrf", csrf), ("username", username), ("password", password)])
        #expect(signedIn.response.statusCode == 303, "sign-in answered \(signedIn.response.statusCode): \(signedIn.body)")
        cookie = "notes_session=" + (try #require(Self.cookie("notes_session", in: signedIn.response)))
    }

    /// Enters `code` on `/device` and presses Approve or Deny; the final page's text.
    func decide(code: String, _ decision: String) async throws -> String {
        let entry = try await Self.send(baseURL, "GET", "/device?code=\(code)", cookie: cookie)
        #expect(entry.response.statusCode == 200, "\(entry.body)")
        #expect(entry.body.contains("value=\"\(code)\""), "the code is filled in from the link")
        let csrf = try #require(Self.field("csrf", in: entry.body))
        let confirmation = try await Self.send(baseURL, "POST", "/device", cookie: cookie, form: [("csrf", csrf), ("code", code)])
        #expect(confirmation.body.contains("test box"), "the confirmation names the device: \(confirmation.body)")
        let done = try await Self.send(baseURL, "POST", "/device/decide", cookie: cookie,
                                       form: [("csrf", csrf), ("code", code), ("decision", decision)])
        #expect(done.response.statusCode == 200, "\(done.body)")
        return done.body
    }

    private final class NoRedirects: NSObject, URLSessionTaskDelegate {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        return URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }()

    private static func send(_ baseURL: URL, _ method: String, _ path: String, cookie: String?,
                             form: [(String, String)]? = nil) async throws -> (response: HTTPURLResponse, body: String) {
        var request = URLRequest(url: try #require(URL(string: baseURL.absoluteString + path)))
        request.httpMethod = method
        if let cookie { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
        if let form {
            request.setValue(baseURL.absoluteString.trimmingCharacters(in: ["/"]), forHTTPHeaderField: "Origin")
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&").utf8)
        }
        let (data, response) = try await session.data(for: request)
        return (try #require(response as? HTTPURLResponse), String(decoding: data, as: UTF8.self))
    }

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// The value of `name` among the answer's cookies (Foundation may fold several `Set-Cookie` into one line).
    private static func cookie(_ name: String, in response: HTTPURLResponse) -> String? {
        let header = response.value(forHTTPHeaderField: "Set-Cookie") ?? ""
        return header.firstMatch(of: try! Regex("(?:^|[ ,])\(name)=([^;,]+)")).flatMap { $0.output[1].substring.map(String.init) }
    }

    private static func field(_ name: String, in body: String) -> String? {
        guard let start = body.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(body[start.upperBound...].prefix { $0 != "\"" })
    }
}
