import Foundation
import NotesCommandLine
import NotesCore

/// Everything `notes-server serve` can be told, with the embedded defaults.
struct ServerConfiguration: Sendable {
    /// `--db`: a SQLite file's path, or a `postgres://` URL (see `DatabaseLocation`).
    var databasePath = ServerConfiguration.defaultDatabasePath()
    /// Whether missing folders above a SQLite `databasePath` are created (`--create-dirs`, or
    /// the default path); otherwise only the database's own file is.
    var createsDatabaseFolders = false
    /// `--db-pool-size`: PostgreSQL connections per server; nil means one per HTTP thread.
    var databasePoolSize: Int?
    /// Keep token rows (at most 1 s) and notes (invalidated by every change heard) for
    /// `GET /v1/notes/{id}`; `--no-cache` turns it off. See `NoteCache` and `TokenCheckCache`.
    var cachesReads = true
    /// The Markdown notes render in unless a request asks for another (`--markdown`).
    var markdownFlavour: MarkdownFlavour = .default
    var host = "127.0.0.1"
    var port: UInt16 = 8080
    /// `--metrics-listen`: where `/metrics` is served on a listener of its own; nil: nowhere.
    var metricsListen: (host: String, port: UInt16)?
    var lifetimes = TokenLifetimes()
    /// Browser sessions' idle and absolute lifetimes (`--web-idle-ttl`, `--web-max-ttl`).
    var browserLifetimes = BrowserSessionLifetimes()
    /// How many sign-in attempts an account and a client address get, and how guessing is slowed.
    var loginLimits = LoginThrottle.Limits()
    /// Tombstones older than this are purged; change cursors from before then must resync.
    var tombstoneRetentionSeconds = 90 * 86_400
    /// Revisions older than this are pruned (except each note's latest); nil keeps them all.
    var revisionRetentionSeconds: Int?
    var limits = ServerLimits(maxNoteBytes: 10 * 1024 * 1024, maxRequestBytes: 32 * 1024 * 1024,
                              maxBatchOperations: 1000, maxPageSize: 1000, requestsPerMinute: 6000,
                              maxPageBytes: 4 * 1024 * 1024, maxUnauthenticatedRequestBytes: Router.defaultOpenBodyLimit,
                              maxWaitSeconds: 60, maxWaitersPerUser: 8, maxWaiters: 4096)
    /// Requests to published pages (`/p/...`) one client address may make a minute, beyond the general rate.
    var publicationRequestsPerMinute = 120
    /// `--max-attachment-size`, the upload chunk size and `--quota`.
    var attachments = AttachmentLimits()
    /// `--content-store`: attachment bytes beside the database, or in an S3-compatible bucket.
    var contentStore = ContentStoreChoice.besideDatabase
    /// `--s3-credentials-file`: where the S3 credentials are read from when no
    /// `AWS_ACCESS_KEY_ID` is set, for `--content-store` and for a bucket the database records.
    var s3CredentialsFile: String?
    /// How long one exchange with an S3 content store may take (tests shorten it).
    var objectStorageTimeouts = ObjectStorageTimeouts()
    /// Where the server reads the time; tests pass a clock they advance by hand.
    var clock = ServerClock()
    var tlsCertificatePath: String?
    var tlsKeyPath: String?
    /// HTTP threads: a small pool, so one request that takes a while (a large changes page)
    /// never holds up the others.
    var threadCount = 4
    /// Connections served at once.
    var connectionLimit = 1024
    /// Connections per client address; nil: 64, or none when behind trusted proxies (whose
    /// connections carry every client's requests; the proxy should limit per client instead).
    var connectionsPerAddress: Int?
    /// Seconds a connection has to send a request's headers (bodies get more by their size).
    var requestTimeoutSeconds = 30
    /// Bytes every request body being received may hold together.
    var bodyBudgetBytes = 64 * 1024 * 1024
    /// Identity providers to sign in with (`--oidc-providers`, `--public-url`).
    var signIn = SignInSettings()
    /// `--trusted-proxy` ranges: their `X-Forwarded-For` names the client.
    var trustedProxies: [AddressRange] = []

    /// The per-address connection limit in force (0: none).
    var effectiveConnectionsPerAddress: Int {
        connectionsPerAddress ?? (trustedProxies.isEmpty ? 64 : 0)
    }

    /// The long poll's total cap in force: `--max-waiters`, but never more than three quarters of
    /// `--max-connections`, since each held request keeps a connection and ordinary requests
    /// need the rest.
    var effectiveMaxWaiters: Int {
        max(1, min(limits.maxWaiters ?? 4096, connectionLimit - connectionLimit / 4))
    }

    /// Long polls one client address may hold: half its connection cap, so the address keeps
    /// connections for ordinary requests (0: none, as with no per-address connection cap).
    var effectiveMaxWaitersPerAddress: Int {
        let connections = effectiveConnectionsPerAddress
        return connections == 0 ? 0 : max(1, connections / 2)
    }

    /// What `/v1/limits` publishes: the configured limits with the long poll's caps in force.
    var publishedLimits: ServerLimits {
        var published = limits
        published.maxWaiters = effectiveMaxWaiters
        published.maxAttachmentBytes = attachments.maxAttachmentBytes
        published.uploadChunkBytes = attachments.uploadChunkBytes
        published.quotaBytes = attachments.quotaBytes
        published.maxContentBatchBytes = attachments.uploadChunkBytes
        return published
    }

    /// `--max-db-size`: the most the database file may grow to, in bytes (`nil`: no limit).
    /// Writes that need more answer 507, like a full disk, until room is freed.
    var maxDatabaseBytes: Int64?

    /// `$XDG_DATA_HOME/notes-server/notes.sqlite`, else `~/.local/share/notes-server/notes.sqlite`.
    static func defaultDatabasePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return base + "/notes-server/notes.sqlite"
    }

    /// Parses a positive duration such as `30d`, `12h`, `90m`, `45s`, `2w`, or bare seconds.
    static func parseDuration(_ text: String, option: String) throws(UsageError) -> Int {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        var digits = Substring(text), unit = 1
        if let last = text.last, let seconds = units[last] {
            digits = text.dropLast()
            unit = seconds
        }
        guard let count = Int(digits), count > 0, count <= Int(Int32.max) else {
            throw UsageError("\(option) takes a positive duration such as 30d, 12h, 90m or 45s, not '\(text)'")
        }
        return count * unit
    }

    /// Parses a size in bytes, with an optional 1024-based suffix: `500000`, `64K`, `512M`, `2G`.
    static func parseSize(_ text: String, option: String) throws(UsageError) -> Int64 {
        let multipliers: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = Substring(text)
        var multiplier: Int64 = 1
        if let last = digits.last?.uppercased().first, let factor = multipliers[last] {
            multiplier = factor
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int64(digits), number > 0 else {
            throw UsageError("\(option) takes a size in bytes, such as 500000, 512M or 2G (not '\(text)')")
        }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { throw UsageError("\(option) is too large: '\(text)'") }
        return bytes
    }

    /// Parses `HOST:PORT`, `[IPv6]:PORT` or `:PORT`.
    static func parseListen(_ text: String, option: String = "--listen") throws(UsageError) -> (host: String, port: UInt16) {
        let host: Substring, portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[close...].dropFirst().drop { $0 == ":" }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            throw UsageError("\(option) takes HOST:PORT, such as 127.0.0.1:8080")
        }
        guard let port = UInt16(portText) else { throw UsageError("\(option) has an invalid port in '\(text)'") }
        return (host.isEmpty ? "127.0.0.1" : String(host), port)
    }
}
