import Foundation
import NotesCore

/// Everything `notes-server serve` can be told, with the embedded defaults.
struct ServerConfiguration: Sendable {
    var databasePath = ServerConfiguration.defaultDatabasePath()
    var host = "127.0.0.1"
    var port: UInt16 = 8080
    var lifetimes = TokenLifetimes()
    /// How many sign-in attempts an account and a client address get, and how guessing is slowed.
    var loginLimits = LoginThrottle.Limits()
    /// Tombstones older than this are purged; change cursors from before then must resync.
    var tombstoneRetentionSeconds = 90 * 86_400
    var limits = ServerLimits(maxNoteBytes: 10 * 1024 * 1024, maxRequestBytes: 32 * 1024 * 1024,
                              maxBatchOperations: 1000, maxPageSize: 1000, requestsPerMinute: 6000)
    /// Where the server reads the time; tests pass a clock they advance by hand.
    var clock = ServerClock()
    var tlsCertificatePath: String?
    var tlsKeyPath: String?
    var threadCount = 1

    /// `$XDG_DATA_HOME/notes-server/notes.sqlite`, else `~/.local/share/notes-server/notes.sqlite`.
    static func defaultDatabasePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return base + "/notes-server/notes.sqlite"
    }

    /// Parses `HOST:PORT`, `[IPv6]:PORT` or `:PORT`.
    static func parseListen(_ text: String) throws(UsageError) -> (host: String, port: UInt16) {
        let host: Substring, portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[close...].dropFirst().drop { $0 == ":" }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            throw UsageError("--listen takes HOST:PORT, such as 127.0.0.1:8080")
        }
        guard let port = UInt16(portText) else { throw UsageError("--listen has an invalid port in '\(text)'") }
        return (host.isEmpty ? "127.0.0.1" : String(host), port)
    }
}
