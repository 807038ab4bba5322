import Foundation
import NotesCore

/// `notes-server serve`: runs the HTTP API until SIGTERM or SIGINT, then drains and closes.
enum ServeCommand {
    static let help = """
        Usage: notes-server serve [options]

        Runs the Notes API. With no options: SQLite at ~/.local/share/notes-server/notes.sqlite
        (or $XDG_DATA_HOME), listening on 127.0.0.1:8080.

        Options:
          --db PATH                  The SQLite database (created and migrated if needed)
          --listen HOST:PORT         Address to listen on; port 0 picks a free one (printed)
          --access-token-ttl SECS    Access token lifetime (default 3600)
          --refresh-idle-ttl SECS    A session unused this long must sign in again (default 30 days)
          --refresh-max-ttl SECS     The longest any session lives (default 365 days)
          --refresh-grace SECS       How long the previous refresh token still works after a
                                     rotation, for a client that lost the answer (default 60; 0: off)
          --login-attempts N         Sign-in attempts on one account from one address per
                                     window (default 10); from any address, attempts past 20
                                     are spaced out by a delay doubling from 1 s to 30 s
          --login-attempts-per-address N
                                     Sign-in attempts per client address per window (default 50)
          --login-window SECS        The sign-in attempt window (default 900)
          --requests-per-minute N    Requests per client address per minute, published in
                                     /v1/limits (default 6000)
          --tombstone-ttl SECS       How long deletions are kept for syncing clients (default 90 days);
                                     a deleted note can be restored (`notes restore`) until then
          --revision-ttl DURATION    Delete revisions older than this (30d, 12h, 90m, 45s, or
                                     seconds), except each note's latest and, for a deleted note,
                                     its last content (default: keep all)
          --tls-cert PATH            PEM certificate: serve HTTPS (or put a reverse proxy in front)
          --tls-key PATH             PEM private key for --tls-cert
          --threads N                HTTP threads (default 4)
          --max-connections N        Connections served at once (default 1024)
          --max-connections-per-address N
                                     Connections one client address may hold (default 64;
                                     0: no limit, the default with --trusted-proxy)
          --request-timeout SECS     Time to send a request's headers, however slowly; a body
                                     gets this plus its size at 64 KiB/s (default 30)
          --body-budget BYTES        Memory all request bodies being received may hold
                                     together; beyond it 503 (default 64 MiB)
          --max-page-bytes BYTES     Bytes per changes page with content, published in
                                     /v1/limits (default 4 MiB)
          --max-wait SECS            The longest a changes request with `wait` is held (1-60,
                                     default 60), published in /v1/limits
          --max-waiters N            Changes requests held at once in total (default 4096, and
                                     at most three quarters of --max-connections)
          --max-waiters-per-user N   Changes requests one user may have held at once (default 8)
          --trusted-proxy CIDR       A reverse proxy (or range) whose X-Forwarded-For names
                                     the client; repeatable, IPv4 or IPv6 (e.g. 127.0.0.1/32)
          --max-db-size SIZE         The most the database file may grow to (bytes, or 512M,
                                     2G): past it, writes answer 507 and reads go on; writes
                                     work again once room is freed (default: no limit)
        """

    static func run(_ arguments: inout Arguments) throws -> Never {
        var configuration = ServerConfiguration()
        if let db = try arguments.option("--db") { configuration.databasePath = db }
        if let listen = try arguments.option("--listen") {
            (configuration.host, configuration.port) = try ServerConfiguration.parseListen(listen)
        }
        if let ttl = try positiveInt(&arguments, "--access-token-ttl") { configuration.lifetimes.accessSeconds = ttl }
        if let ttl = try positiveInt(&arguments, "--refresh-idle-ttl") { configuration.lifetimes.refreshIdleSeconds = ttl }
        if let ttl = try positiveInt(&arguments, "--refresh-max-ttl") { configuration.lifetimes.refreshAbsoluteSeconds = ttl }
        if let grace = try arguments.intOption("--refresh-grace") {
            guard grace >= 0 else { throw UsageError("--refresh-grace must be 0 or more seconds") }
            configuration.lifetimes.refreshGraceSeconds = grace
        }
        if let attempts = try positiveInt(&arguments, "--login-attempts") { configuration.loginLimits.perAccountAndAddress = attempts }
        if let attempts = try positiveInt(&arguments, "--login-attempts-per-address") { configuration.loginLimits.perAddress = attempts }
        if let window = try positiveInt(&arguments, "--login-window") { configuration.loginLimits.windowSeconds = window }
        if let rate = try positiveInt(&arguments, "--requests-per-minute") { configuration.limits.requestsPerMinute = rate }
        if let ttl = try positiveInt(&arguments, "--tombstone-ttl") { configuration.tombstoneRetentionSeconds = ttl }
        if let ttl = try arguments.option("--revision-ttl") {
            configuration.revisionRetentionSeconds = try ServerConfiguration.parseDuration(ttl, option: "--revision-ttl")
        }
        if let threads = try positiveInt(&arguments, "--threads") { configuration.threadCount = min(threads, 64) }
        if let connections = try positiveInt(&arguments, "--max-connections") { configuration.connectionLimit = connections }
        if let perAddress = try arguments.intOption("--max-connections-per-address") {
            guard perAddress >= 0 else { throw UsageError("--max-connections-per-address must be 0 (no limit) or more") }
            configuration.connectionsPerAddress = perAddress
        }
        if let timeout = try positiveInt(&arguments, "--request-timeout") { configuration.requestTimeoutSeconds = timeout }
        if let budget = try positiveInt(&arguments, "--body-budget") {
            guard budget >= configuration.limits.maxRequestBytes else {
                throw UsageError("--body-budget must hold at least one largest request (\(configuration.limits.maxRequestBytes) bytes)")
            }
            configuration.bodyBudgetBytes = budget
        }
        if let pageBytes = try positiveInt(&arguments, "--max-page-bytes") { configuration.limits.maxPageBytes = pageBytes }
        if let wait = try positiveInt(&arguments, "--max-wait") {
            guard wait <= 60 else { throw UsageError("--max-wait must be from 1 to 60 seconds") }
            configuration.limits.maxWaitSeconds = wait
        }
        if let waiters = try positiveInt(&arguments, "--max-waiters") { configuration.limits.maxWaiters = waiters }
        if let waiters = try positiveInt(&arguments, "--max-waiters-per-user") { configuration.limits.maxWaitersPerUser = waiters }
        for text in try arguments.repeatedOption("--trusted-proxy") {
            guard let range = AddressRange(text) else {
                throw UsageError("--trusted-proxy takes an IPv4 or IPv6 address or CIDR range such as 10.0.0.0/8 or fd00::/8, not '\(text)'")
            }
            configuration.trustedProxies.append(range)
        }
        if let size = try arguments.option("--max-db-size") {
            let bytes = try ServerConfiguration.parseSize(size, option: "--max-db-size")
            // Below this, even the schema does not fit.
            guard bytes >= 1 << 20 else { throw UsageError("--max-db-size must be at least 1M") }
            configuration.maxDatabaseBytes = bytes
        }
        configuration.tlsCertificatePath = try arguments.option("--tls-cert")
        configuration.tlsKeyPath = try arguments.option("--tls-key")
        guard (configuration.tlsCertificatePath == nil) == (configuration.tlsKeyPath == nil) else {
            throw UsageError("--tls-cert and --tls-key go together")
        }
        try arguments.finish()
        try ServerRunner(configuration: configuration).run()
    }

    private static func positiveInt(_ arguments: inout Arguments, _ name: String) throws(UsageError) -> Int? {
        guard let value = try arguments.intOption(name) else { return nil }
        guard value > 0 else { throw UsageError("\(name) must be a positive number") }
        return value
    }
}
