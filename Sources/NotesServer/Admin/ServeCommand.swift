import Foundation
import NotesCommandLine
import NotesCore

/// `notes-server serve`: runs the HTTP API until SIGTERM or SIGINT, then drains and closes.
struct ServeCommand: AdminCommand {
    static let spec = CommandSpec(
        "serve", abstract: "Run the API (see `notes-server serve --help`)",
        discussion: """
            Runs the Notes API. With no options: SQLite at ~/.local/share/notes-server/notes.sqlite
            (or $XDG_DATA_HOME), listening on 127.0.0.1:8080. The database is created and migrated
            if needed; the folders above a --db file only with --create-dirs (the default path's
            always are), so a mistyped folder is refused. Durations are a number with a unit (45s, 90m, 12h, 30d, 2w) or seconds.
            """,
        options: [
            .value("listen", placeholder: "HOST:PORT", help: "Address to listen on; port 0 picks a free one (printed)"),
            .createDatabaseFolders,
            .value("metrics-listen", placeholder: "HOST:PORT",
                   help: "Serve /metrics (Prometheus text format) on this address, a listener of its own; never on --listen's "
                       + "(default: off)"),
            .value("access-token-ttl", .duration, placeholder: "DURATION", help: "Access token lifetime (default 1h)"),
            .value("refresh-idle-ttl", .duration, placeholder: "DURATION",
                   help: "A session unused this long must sign in again (default 30d)"),
            .value("refresh-max-ttl", .duration, placeholder: "DURATION", help: "The longest any session lives (default 365d)"),
            .value("web-idle-ttl", .duration, placeholder: "DURATION", help: "A browser session unused this long ends (default 12h)"),
            .value("web-max-ttl", .duration, placeholder: "DURATION", help: "The longest a browser session lives (default 7d)"),
            .value("refresh-grace", .duration, placeholder: "DURATION",
                   help: "How long the previous refresh token still works after a rotation, for a client that lost "
                       + "the answer (default 60s; 0: off)"),
            .value("login-attempts", .int, placeholder: "N",
                   help: "Sign-in attempts on one account from one address per window (default 10); from any address, "
                       + "attempts past 20 are spaced out by a delay doubling from 1 s to 30 s"),
            .value("login-attempts-per-address", .int, placeholder: "N",
                   help: "Sign-in attempts per client address per window (default 50)"),
            .value("login-window", .duration, placeholder: "DURATION", help: "The sign-in attempt window (default 15m)"),
            .value("requests-per-minute", .int, placeholder: "N",
                   help: "Requests per client address per minute, published in /v1/limits (default 6000)"),
            .value("tombstone-ttl", .duration, placeholder: "DURATION",
                   help: "How long deletions are kept for syncing clients (default 90d); a deleted note can be restored "
                       + "(`notes restore`) until then"),
            .value("revision-ttl", .duration, placeholder: "DURATION",
                   help: "Delete revisions older than this, except each note's latest and, for a deleted note, its last "
                       + "content (default: keep all)"),
            .value("tls-cert", .file, placeholder: "PATH", help: "PEM certificate: serve HTTPS (or put a reverse proxy in front)"),
            .value("tls-key", .file, placeholder: "PATH", help: "PEM private key for --tls-cert"),
            .value("threads", .int, placeholder: "N", help: "HTTP threads (default 4)"),
            .value("db-pool-size", .int, placeholder: "N",
                   help: "PostgreSQL connections this server opens at most (default: one per HTTP thread)"),
            .flag("no-cache", help: "Read every GET /v1/notes/{id} from the database: by default a note read again is answered "
                      + "from memory (notes ≤ 256 KiB, 16 MiB in all, forgotten at every change any server makes; token checks "
                      + "kept ≤ 1 s)"),
            .value("markdown", placeholder: "FLAVOUR",
                   help: "How notes render in the API's HTML, the web app and published pages: default (CommonMark, GitHub's "
                       + "tables, task lists, footnotes and the like, and what Obsidian users write: front matter, callouts, "
                       + "wiki links, #tags, math) or commonmark (pure CommonMark 0.30, nothing added); a request to "
                       + "/v1/notes/{id}/html may ask for the other with ?flavour= (default: default)"),
            .value("max-connections", .int, placeholder: "N", help: "Connections served at once (default 1024)"),
            .value("max-connections-per-address", .int, placeholder: "N",
                   help: "Connections one client address may hold (default 64; 0: no limit, the default with --trusted-proxy)"),
            .value("request-timeout", .duration, placeholder: "DURATION",
                   help: "Time to send a request's headers, however slowly; a body gets this plus its size at 64 KiB/s "
                       + "(default 30s)"),
            .value("body-budget", .int, placeholder: "BYTES",
                   help: "Memory all request bodies being received may hold together; beyond it 503 (default 64 MiB)"),
            .value("max-page-bytes", .int, placeholder: "BYTES",
                   help: "Bytes per changes page with content, published in /v1/limits (default 4 MiB)"),
            .value("max-note-size", placeholder: "SIZE",
                   help: "The largest note (bytes, or 512K, 1M), published in /v1/limits; at most the default 10M"),
            .value("max-wait", .duration, placeholder: "DURATION",
                   help: "The longest a changes request with `wait` is held (1s to 60s, default 60s), published in /v1/limits"),
            .value("max-waiters", .int, placeholder: "N",
                   help: "Changes requests held at once in total (default 4096, and at most three quarters of --max-connections)"),
            .value("max-waiters-per-user", .int, placeholder: "N",
                   help: "Changes requests one user may have held at once (default 8)"),
            .repeatable("trusted-proxy", placeholder: "CIDR",
                        help: "A reverse proxy (or range) whose X-Forwarded-For names the client; repeatable, IPv4 or IPv6 "
                            + "(e.g. 127.0.0.1/32)"),
            .value("oidc-providers", .file, placeholder: "FILE",
                   help: "Identity providers to sign in with (OpenID Connect), a JSON file: {\"providers\": [{\"id\", "
                       + "\"issuer\", \"client_id\", \"client_secret_file\" or \"client_secret_env\", \"display_name\", "
                       + "\"allow_sign_up\", \"trust_verified_email\", \"timeout_seconds\", \"scopes\"}]}; the secret is never in "
                       + "the file or on the command line. See \"Signing in with an identity provider\" in the README"),
            .value("public-url", .url, placeholder: "URL",
                   help: "The address browsers reach this server at (https://notes.example.org); required with "
                       + "--oidc-providers, whose redirect URI is URL/auth/oidc/callback"),
            .value("max-attachment-size", placeholder: "SIZE",
                   help: "The largest attachment (bytes, or 512M, 2G), published in /v1/limits; larger uploads answer 413 "
                       + "before any byte is stored (default 256M)"),
            .value("quota", placeholder: "SIZE",
                   help: "Attachment content each user may store (bytes, or 10G), published in /v1/limits; past it uploads "
                       + "answer 507 (default: none; `notes-server user list` shows usage)"),
            .value("max-db-size", placeholder: "SIZE",
                   help: "The most the database file may grow to (bytes, or 512M, 2G): past it, writes answer 507 and "
                       + "reads go on; writes work again once room is freed (default: no limit)"),
        ] + ContentStoreChoice.options())

    let configuration: ServerConfiguration

    init(_ parsed: ParsedCommand) throws {
        var configuration = ServerConfiguration()
        configuration.databasePath = parsed.databasePath
        configuration.createsDatabaseFolders = parsed.createsDatabaseFolders
        if let listen = parsed.value("listen") {
            (configuration.host, configuration.port) = try ServerConfiguration.parseListen(listen)
        }
        if let metrics = parsed.value("metrics-listen") {
            let address = try ServerConfiguration.parseListen(metrics, option: "--metrics-listen")
            guard address.port == 0 || address.port != configuration.port else {
                throw UsageError("--metrics-listen must differ from --listen: the metrics are never served on the public port")
            }
            configuration.metricsListen = address
        }
        if let ttl = try Self.positive(parsed.duration("access-token-ttl"), "access-token-ttl") { configuration.lifetimes.accessSeconds = ttl }
        if let ttl = try Self.positive(parsed.duration("refresh-idle-ttl"), "refresh-idle-ttl") { configuration.lifetimes.refreshIdleSeconds = ttl }
        if let ttl = try Self.positive(parsed.duration("refresh-max-ttl"), "refresh-max-ttl") { configuration.lifetimes.refreshAbsoluteSeconds = ttl }
        if let ttl = try Self.positive(parsed.duration("web-idle-ttl"), "web-idle-ttl") { configuration.browserLifetimes.idleSeconds = ttl }
        if let ttl = try Self.positive(parsed.duration("web-max-ttl"), "web-max-ttl") { configuration.browserLifetimes.absoluteSeconds = ttl }
        if let grace = parsed.duration("refresh-grace") { configuration.lifetimes.refreshGraceSeconds = grace }
        if let attempts = try Self.positive(parsed.int("login-attempts"), "login-attempts") { configuration.loginLimits.perAccountAndAddress = attempts }
        if let attempts = try Self.positive(parsed.int("login-attempts-per-address"), "login-attempts-per-address") {
            configuration.loginLimits.perAddress = attempts
        }
        if let window = try Self.positive(parsed.duration("login-window"), "login-window") { configuration.loginLimits.windowSeconds = window }
        if let rate = try Self.positive(parsed.int("requests-per-minute"), "requests-per-minute") { configuration.limits.requestsPerMinute = rate }
        if let ttl = try Self.positive(parsed.duration("tombstone-ttl"), "tombstone-ttl") { configuration.tombstoneRetentionSeconds = ttl }
        if let ttl = parsed.value("revision-ttl") {
            configuration.revisionRetentionSeconds = try ServerConfiguration.parseDuration(ttl, option: "--revision-ttl")
        }
        if let threads = try Self.positive(parsed.int("threads"), "threads") { configuration.threadCount = min(threads, 64) }
        if let size = try Self.positive(parsed.int("db-pool-size"), "db-pool-size") { configuration.databasePoolSize = min(size, 1000) }
        configuration.cachesReads = !parsed.flag("no-cache")
        if let markdown = parsed.value("markdown") {
            guard let flavour = NoteRendering.flavour(named: markdown) else {
                throw UsageError("--markdown must be default or commonmark, not '\(markdown)'")
            }
            configuration.markdownFlavour = flavour
        }
        if let connections = try Self.positive(parsed.int("max-connections"), "max-connections") { configuration.connectionLimit = connections }
        if let perAddress = parsed.int("max-connections-per-address") {
            guard perAddress >= 0 else { throw UsageError("--max-connections-per-address must be 0 (no limit) or more") }
            configuration.connectionsPerAddress = perAddress
        }
        if let timeout = try Self.positive(parsed.duration("request-timeout"), "request-timeout") { configuration.requestTimeoutSeconds = timeout }
        if let budget = try Self.positive(parsed.int("body-budget"), "body-budget") {
            guard budget >= configuration.limits.maxRequestBytes else {
                throw UsageError("--body-budget must hold at least one largest request (\(configuration.limits.maxRequestBytes) bytes)")
            }
            configuration.bodyBudgetBytes = budget
        }
        if let pageBytes = try Self.positive(parsed.int("max-page-bytes"), "max-page-bytes") { configuration.limits.maxPageBytes = pageBytes }
        if let size = parsed.value("max-note-size") {
            let bytes = try ServerConfiguration.parseSize(size, option: "--max-note-size")
            // Larger notes would need larger requests and answers than every client expects.
            guard bytes <= configuration.limits.maxNoteBytes else { throw UsageError("--max-note-size may be at most 10M") }
            configuration.limits.maxNoteBytes = Int(bytes)
        }
        if let wait = try Self.positive(parsed.duration("max-wait"), "max-wait") {
            guard wait <= 60 else { throw UsageError("--max-wait must be from 1 to 60 seconds") }
            configuration.limits.maxWaitSeconds = wait
        }
        if let waiters = try Self.positive(parsed.int("max-waiters"), "max-waiters") { configuration.limits.maxWaiters = waiters }
        if let waiters = try Self.positive(parsed.int("max-waiters-per-user"), "max-waiters-per-user") {
            configuration.limits.maxWaitersPerUser = waiters
        }
        for text in parsed.values("trusted-proxy") {
            guard let range = AddressRange(text) else {
                throw UsageError("--trusted-proxy takes an IPv4 or IPv6 address or CIDR range such as 10.0.0.0/8 or fd00::/8, not '\(text)'")
            }
            configuration.trustedProxies.append(range)
        }
        if let size = parsed.value("max-attachment-size") {
            configuration.attachments.maxAttachmentBytes = Int(try ServerConfiguration.parseSize(size, option: "--max-attachment-size"))
        }
        if let size = parsed.value("quota") {
            configuration.attachments.quotaBytes = Int(try ServerConfiguration.parseSize(size, option: "--quota"))
        }
        if let size = parsed.value("max-db-size") {
            let bytes = try ServerConfiguration.parseSize(size, option: "--max-db-size")
            // Below this, even the schema does not fit.
            guard bytes >= 1 << 20 else { throw UsageError("--max-db-size must be at least 1M") }
            configuration.maxDatabaseBytes = bytes
        }
        configuration.signIn = try SignInSettings.parse(providersFile: parsed.value("oidc-providers"), publicURL: parsed.value("public-url"),
                                                        environment: ProcessInfo.processInfo.environment)
        configuration.contentStore = try ContentStoreChoice.parse(parsed)
        configuration.s3CredentialsFile = parsed.value("s3-credentials-file")
        configuration.tlsCertificatePath = parsed.value("tls-cert")
        configuration.tlsKeyPath = parsed.value("tls-key")
        guard (configuration.tlsCertificatePath == nil) == (configuration.tlsKeyPath == nil) else {
            throw UsageError("--tls-cert and --tls-key go together")
        }
        self.configuration = configuration
    }

    func run() throws {
        try ServerRunner(configuration: configuration).run()
    }

    /// `value`, refused unless above zero.
    private static func positive(_ value: Int?, _ name: String) throws(UsageError) -> Int? {
        guard let value else { return nil }
        guard value > 0 else { throw UsageError("--\(name) must be more than zero") }
        return value
    }
}
