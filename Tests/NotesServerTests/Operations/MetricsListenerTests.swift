import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// `--metrics-listen`: `/metrics` in the Prometheus text format on a listener of its own, never
/// on the public port, counting requests by route template and status, with latency histograms,
/// and the sign-in counters; no label carries a user name, a path or a token.
@Suite("Metrics listener")
struct MetricsListenerTests {
    static let flags = ["--metrics-listen", "127.0.0.1:0"]

    @Test("/metrics answers on the metrics listener only: the public port has no such route, the listener nothing else")
    func metricsOnlyOnTheirOwnListener() async throws {
        try await LiveServer.with(Self.flags, account: .none) { server, api in
            let metrics = try Self.metricsClient(server)
            let scrape = try await metrics.send("GET", "/metrics")
            #expect(scrape.status == 200)
            #expect(scrape.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            #expect(scrape.text.contains("# TYPE notes_http_requests_total counter"))
            #expect(try await api.send("GET", "/metrics").status == 404, "never on the public port")
            #expect(try await metrics.send("GET", "/v1/limits").status == 404, "the listener serves nothing but /metrics")
            #expect(try await metrics.send("POST", "/metrics", body: Data("x".utf8)).status != 200)
        }
    }

    @Test("without --metrics-listen no metrics listener starts")
    func offByDefault() async throws {
        try await LiveServer.with([], account: .none) { server, _ in
            #expect(!server.startupOutput.contains("metrics at"), "\(server.startupOutput)")
        }
    }

    @Test("--metrics-listen on the public listener's port is refused as a usage error")
    func refusedOnThePublicPort() async throws {
        try await withTemporaryDirectory { folder in
            let result = try await ProcessRunner.run(BuiltProducts.server, [
                "serve", "--db", folder.appending("notes.sqlite").path, "--listen", "127.0.0.1:18083", "--metrics-listen", "127.0.0.1:18083",
            ])
            #expect(result.exitCode == 2)
            #expect(result.stderr.contains("--metrics-listen must differ from --listen"), "\(result.stderr)")
        }
    }

    @Test("requests count by route template and status with a latency histogram; no label holds a path, a user name or a token")
    func requestsByRouteTemplateAndStatus() async throws {
        try await LiveServer.with(Self.flags) { server, api in
            let note = try await api.create("secret-folder/plan.md", "# Plan\n")
            for _ in 0..<2 { #expect(try await api.send("GET", "/v1/notes/\(note.id)").status == 200) }
            let missing = NoteID()
            #expect(try await api.send("GET", "/v1/notes/\(missing)").status == 404)
            #expect(try await api.send("GET", "/no/such/path").status == 404)

            let text = try await Self.scrape(server)
            let route = #"method="GET",route="/v1/notes/:id""#
            #expect(Self.value(in: text, "notes_http_requests_total{\(route),status=\"200\"}") == 2, "\(text)")
            #expect(Self.value(in: text, "notes_http_requests_total{\(route),status=\"404\"}") == 1)
            #expect(Self.value(in: text, "notes_http_request_duration_seconds_count{\(route)}") == 3)
            #expect(Self.value(in: text, "notes_http_request_duration_seconds_bucket{\(route),le=\"+Inf\"}") == 3)
            #expect(Self.value(in: text, #"notes_http_requests_total{method="",route="(none)",status="404"}"#) == 1,
                    "a path no route takes counts without its path")
            for secret in [note.id.description, missing.description, "secret-folder", "plan.md", TestAccount.username, "/no/such/path",
                           api.token ?? "-"] {
                #expect(!text.contains(secret), "\(secret) appears in the metrics")
            }
        }
    }

    @Test("wrong passwords count as sign-in failures, attempts over the limit as throttled; sessions and the body budget show")
    func signInFailuresAndThrottling() async throws {
        try await LiveServer.with(Self.flags + ["--login-attempts", "2", "--body-budget", "40000000"]) { server, api in
            for _ in 0..<3 {
                _ = try await api.send("POST", "/v1/auth/login", json: ["username": TestAccount.username, "password": "wrong password"])
            }
            let text = try await Self.scrape(server)
            #expect(Self.value(in: text, "notes_sign_in_failures_total") == 2, "\(text)")
            #expect((Self.value(in: text, "notes_sign_in_throttled_total") ?? 0) >= 1, "\(text)")
            #expect(Self.value(in: text, "notes_http_request_body_budget_bytes") == 40_000_000)
            #expect(Self.value(in: text, "notes_database_up") == 1)
            #expect((Self.value(in: text, "notes_sessions") ?? 0) >= 1, "\(text)")
        }
    }

    /// A client of the server's metrics listener, whose address it printed at start.
    static func metricsClient(_ server: TestServer) throws -> TestAPIClient {
        let output = server.startupOutput
        let found = try #require(output.range(of: #"metrics at http://127\.0\.0\.1:\d+"#, options: .regularExpression), "\(output)")
        let port = try #require(output[found].split(separator: ":").last.flatMap { Int($0) })
        return TestAPIClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!)
    }

    /// One scrape's text.
    static func scrape(_ server: TestServer) async throws -> String {
        let response = try await metricsClient(server).send("GET", "/metrics")
        try #require(response.status == 200)
        return response.text
    }

    /// The value of the sample named exactly `series` (name and labels), if there is one.
    static func value(in text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }
}
