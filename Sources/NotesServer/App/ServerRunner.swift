import Dispatch
import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts the listener, purges old tombstones on a timer, and shuts down cleanly on a signal.
struct ServerRunner {
    let configuration: ServerConfiguration

    func run() throws -> Never {
        // Before anything starts a thread: see TerminationSignals.
        TerminationSignals.block()
        // Written in batches; every way out of here writes what is kept first (see BufferedLog).
        let stderrLog = BufferedLog()
        do {
            try serve(logging: stderrLog)
        } catch {
            stderrLog.close()
            throw error
        }
    }

    private func serve(logging stderrLog: BufferedLog) throws -> Never {
        let log: @Sendable (String) -> Void = { stderrLog.append($0) }
        // Before the database: a server that cannot serve creates nothing.
        let tls = try configuration.tlsCertificatePath.flatMap { cert in
            try configuration.tlsKeyPath.map { key in try TLSFiles(certificate: cert, key: key) }
        }
        let app = try buildApplication(configuration, log: log)
        // Once, at start: pages still serve without them, showing TeX source and plain code.
        for problem in PageAssets.installed.problems { log(problem) }
        var http = HTTPServer.Configuration()
        http.host = configuration.host
        http.port = configuration.port
        http.maxBodyBytes = configuration.limits.maxRequestBytes
        http.threadCount = configuration.threadCount
        http.connectionLimit = configuration.connectionLimit
        http.perAddressConnectionLimit = configuration.effectiveConnectionsPerAddress
        http.requestHeaderTimeoutSeconds = configuration.requestTimeoutSeconds
        http.bodyBudgetBytes = configuration.bodyBudgetBytes
        http.trustedProxies = configuration.trustedProxies
        if let tls {
            http.tlsCertificatePEM = tls.certificatePEM
            http.tlsKeyPEM = tls.keyPEM
        }
        let requests = RequestMetrics(routes: app.router.series + app.responder.web.series)
        let server = HTTPServer(configuration: http, responder: app.responder, log: log, observer: requests)
        // Before the public listener, so its address is printed before the line that says the server listens.
        let metricsServer = try configuration.metricsListen.map { address in
            try startMetrics(at: address, collector: MetricsCollector(requests: requests, server: server, app: app), log: log)
        }
        let purge = startPurging(app)
        let port = try server.start()
        let scheme = http.tlsCertificatePEM == nil ? "http" : "https"
        let shownHost = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        printLine("notes-server \(NotesVersion.current) listening on \(scheme)://\(shownHost):\(port)")
        let databaseName = (try? DatabaseLocation(configuration.databasePath).displayName) ?? configuration.databasePath
        printLine("database: \(databaseName)")
        if configuration.maxDatabaseBytes != nil {
            if let queue = app.database.sqliteQueue {
                let (size, limit) = try queue.withWriter { db in (try db.sizeBytes(), try db.sizeLimitBytes()) }
                printLine("database size limit: \(limit) bytes (now \(size)); writes past it answer 507 insufficient_storage")
            }
        }
        if (try? UserStore(database: app.database, clock: configuration.clock).all().isEmpty) == true {
            // Show the command as this binary was started, so it can be pasted as is.
            let program = CommandLine.arguments.first ?? "notes-server"
            printLine("No users yet. Add the first one with: \(program) user add NAME --db \(databaseName)")
        }
        let received = TerminationSignals.wait()
        log("shutting down on \(received == SIGINT ? "SIGINT" : "SIGTERM"): draining in-flight requests")
        for timer in purge { timer.cancel() }
        // Long polls are answered first (an empty page each), or the drain would wait out their waits.
        server.shutdown(releasingWaiters: app.changeNotifier.close)
        metricsServer?.shutdown()
        do {
            try app.close()
        } catch {
            log("closing the database failed: \(error)")
            stderrLog.close()
            exit(1)
        }
        stderrLog.close()
        exit(0)
    }

    /// Starts the metrics listener on `address` and prints where it is: a small server of its
    /// own (one thread, a few connections, no bodies) that answers only `/metrics`.
    private func startMetrics(at address: (host: String, port: UInt16), collector: MetricsCollector,
                              log: @escaping @Sendable (String) -> Void) throws -> HTTPServer {
        var http = HTTPServer.Configuration()
        http.host = address.host
        http.port = address.port
        http.connectionLimit = 16
        http.maxBodyBytes = 0
        http.bodyBudgetBytes = 0
        let server = HTTPServer(configuration: http, responder: MetricsResponder(collector: collector.render), log: log)
        let port = try server.start()
        let shownHost = address.host.contains(":") ? "[\(address.host)]" : address.host
        printLine("metrics at http://\(shownHost):\(port)/metrics")
        return server
    }

    /// Purges tombstones and revisions past their retention, and credentials nobody can use any
    /// more, now and then every hour (or sooner for short retentions, which tests use).
    /// Credentials run on their own, faster cadence: a rotation's sealed answer must go when its
    /// grace window ends.
    private func startPurging(_ app: Application) -> [any DispatchSourceTimer] {
        let retention = Int64(configuration.tombstoneRetentionSeconds) * 1000
        // Short lifetimes (tests) purge sooner, so what expires is seen to go.
        let revisionRetention = configuration.revisionRetentionSeconds
        let interval = max(1, min(3600, configuration.tombstoneRetentionSeconds / 2, configuration.lifetimes.accessSeconds,
                                  (revisionRetention ?? 7200) / 2))
        let lifetimes = configuration.lifetimes
        let credentialsInterval = max(1, min(interval, lifetimes.refreshGraceSeconds > 0 ? lifetimes.refreshGraceSeconds : interval))
        let tombstones = Self.repeating(every: interval) {
            do {
                try app.notes.purgeTombstones(olderThanMilliseconds: retention)
            } catch {
                app.log("purging old deletions failed: \(error)")
            }
            if let revisionRetention {
                do {
                    try app.notes.pruneRevisions(olderThanMilliseconds: Int64(revisionRetention) * 1000)
                } catch {
                    app.log("pruning old revisions failed: \(error)")
                }
            }
            // After the tombstones and revisions: what they referred to may now be unreferenced.
            do {
                try app.contents.purge()
            } catch {
                app.log("purging unreferenced attachment content failed: \(error)")
            }
        }
        let credentials = Self.repeating(every: credentialsInterval) {
            do {
                try app.sessions.purgeExpired()
            } catch {
                app.log("purging expired tokens and sessions failed: \(error)")
            }
        }
        return [tombstones, credentials, watchContentStore(app)]
    }

    static func repeating(every seconds: Int, _ work: @escaping @Sendable () -> Void) -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now(), repeating: .seconds(seconds))
        timer.setEventHandler(handler: work)
        timer.resume()
        return timer
    }
}
