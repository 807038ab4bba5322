import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// `/livez` and `/readyz` (docs/architecture.md §8): readiness fails while the database or the
/// content store cannot be reached and recovers by itself; liveness never depends on either;
/// `/healthz` keeps answering as before.
@Suite("Readiness and liveness")
struct ReadinessProbeTests {
    @Test("readiness answers 503 not_ready with Retry-After while the content directory cannot be reached, liveness 200 throughout",
          .sqliteOnly)
    func contentStoreUnreachable() async throws {
        try await LiveServer.with(account: .none) { server, api in
            #expect(try await api.send("GET", "/readyz").status == 200)
            #expect(try await api.send("GET", "/livez").status == 200)
            #expect(try await api.send("GET", "/healthz").status == 200)
            let content = try #require(server.sqlitePath) + ".content"
            // A file where the directory belongs: the store can neither be read nor written.
            try? FileManager.default.removeItem(atPath: content)
            try Data("not a folder".utf8).write(to: URL(fileURLWithPath: content))
            let refused = try await api.send("GET", "/readyz")
            #expect(refused.status == 503)
            #expect(refused.errorCode == "not_ready")
            #expect(refused.header("Retry-After") != nil)
            #expect(refused.text.contains("content store"), "\(refused.text)")
            #expect(!refused.text.contains(content), "the answer names no path")
            #expect(try await api.send("GET", "/livez").status == 200, "liveness does not depend on the store")
            #expect(try await api.send("GET", "/healthz").status == 200)
            try FileManager.default.removeItem(atPath: content)
            try FileManager.default.createDirectory(atPath: content, withIntermediateDirectories: false)
            #expect(try await api.send("GET", "/readyz").status == 200, "ready again once the store can be reached")
        }
    }

    @Test("readiness answers 503 while the SQLite file is moved away from its path, and 200 once it is back; liveness 200", .sqliteOnly)
    func sqliteFileMoved() async throws {
        try await LiveServer.with(account: .none) { server, api in
            let path = try #require(server.sqlitePath)
            #expect(try await api.send("GET", "/readyz").status == 200)
            try FileManager.default.moveItem(atPath: path, toPath: path + ".aside")
            let refused = try await api.send("GET", "/readyz")
            #expect(refused.status == 503)
            #expect(refused.errorCode == "not_ready")
            #expect(refused.text.contains("database"), "\(refused.text)")
            #expect(try await api.send("GET", "/livez").status == 200, "liveness does not depend on the database")
            try FileManager.default.moveItem(atPath: path + ".aside", toPath: path)
            #expect(try await api.send("GET", "/readyz").status == 200, "ready again once the file is back")
        }
    }

    @Test("on PostgreSQL, readiness answers 503 while the database refuses connections and 200 once it takes them again; liveness 200",
          .needsPostgresCluster)
    func databaseUnreachable() async throws {
        try await withPostgresDatabase { database in
            let server = try await TestServer(database: database.url.description)
            let api = TestAPIClient(server)
            let cluster = try PostgresConnection(url: try PostgresURL(try #require(TestPostgresCluster.url)))
            defer {
                try? cluster.execute("ALTER DATABASE \(database.name) ALLOW_CONNECTIONS true")
                cluster.close()
            }
            do {
                #expect(try await api.send("GET", "/readyz").status == 200)
                // The name is made of hex digits only (PostgresTestDatabase.create).
                try cluster.execute("ALTER DATABASE \(database.name) ALLOW_CONNECTIONS false")
                try cluster.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database.name)'")
                let refused = try await api.send("GET", "/readyz")
                #expect(refused.status == 503)
                #expect(refused.errorCode == "not_ready")
                #expect(refused.text.contains("database"), "\(refused.text)")
                #expect(try await api.send("GET", "/livez").status == 200, "liveness does not depend on the database")
                try cluster.execute("ALTER DATABASE \(database.name) ALLOW_CONNECTIONS true")
                // Each pooled connection the outage broke is found and re-established at its next use,
                // so a few probes may still fail, as a load balancer's would, before one succeeds.
                #expect(try await waitUntil(timeout: 20, every: .milliseconds(100)) { try await api.send("GET", "/readyz").status == 200 },
                        "ready again once the database takes connections")
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }
    }
}
