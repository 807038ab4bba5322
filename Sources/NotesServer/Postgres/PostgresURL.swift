import Foundation

/// A PostgreSQL connection URL (`postgres://` or `postgresql://`), checked and taken apart here
/// so that what libpq is given is exactly what was validated.
///
/// The forms libpq documents for connection URIs are accepted: `postgresql://USER:PASSWORD@HOST:PORT/DB`,
/// every part optional, percent-encoded where needed; an IPv6 host in brackets; a Unix-socket
/// directory as `?host=/run/postgresql` (or percent-encoded in the authority, `%2Frun%2Fpostgresql`).
/// Query parameters are libpq's connection keywords; only the ones listed in `allowedParameters`
/// are taken, so a typo fails at start instead of being ignored.
///
/// The password is kept for libpq but never shown: `description` and every error leave it out.
struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    var user: String?
    var password: String?
    /// A host name, an IP address, or a Unix-socket directory (an absolute path).
    var host: String?
    var port: Int?
    var database: String?
    /// Further libpq keywords from the query string (`sslmode`, `connect_timeout`, ...).
    var parameters: [String: String] = [:]

    /// The connection keywords a URL may set in its query string (libpq's names).
    static let allowedParameters: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "application_name", "connect_timeout",
        "sslmode", "sslrootcert", "sslcert", "sslkey", "sslcrl", "target_session_attrs",
        "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout",
        "options", "channel_binding", "gssencmode",
    ]

    /// Whether `value` names a PostgreSQL database rather than a file: it starts with one of the
    /// two schemes (any letter case). A path is never taken for a URL, and a URL never for a path.
    static func isPostgresURL(_ value: String) -> Bool {
        let lowered = value.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Parses `string`.
    /// - Throws: `PostgresURLError` naming the part that is wrong, never quoting the password.
    init(_ string: String) throws(PostgresURLError) {
        guard Self.isPostgresURL(string), let separator = string.range(of: "://") else { throw .notPostgres }
        var rest = string[separator.upperBound...]
        var query = Substring("")
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        if rest.contains("#") { throw .invalid("a fragment (#) has no meaning in a database URL") }
        var path = Substring("")
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        // The authority: [user[:password]@]host[:port]. The last @ ends the userinfo.
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userinfo.firstIndex(of: ":") {
                user = try Self.decode(userinfo[..<colon], part: "user name")
                password = try Self.decode(userinfo[userinfo.index(after: colon)...], part: "password")
            } else {
                user = try Self.decode(userinfo, part: "user name")
            }
        }
        var hostPart = rest
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { throw .invalid("an IPv6 host needs its closing ]") }
            host = String(hostPart[hostPart.index(after: hostPart.startIndex)..<close])
            hostPart = hostPart[hostPart.index(after: close)...]
            if !hostPart.isEmpty {
                guard hostPart.hasPrefix(":") else { throw .invalid("unexpected text after the IPv6 host") }
                port = try Self.port(hostPart.dropFirst())
            }
        } else {
            if let colon = hostPart.lastIndex(of: ":") {
                port = try Self.port(hostPart[hostPart.index(after: colon)...])
                hostPart = hostPart[..<colon]
            }
            if !hostPart.isEmpty { host = try Self.decode(hostPart, part: "host") }
        }
        if !path.isEmpty { database = try Self.decode(path, part: "database name") }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let key: String, value: String
            if let equals = pair.firstIndex(of: "=") {
                key = try Self.decode(pair[..<equals], part: "parameter name")
                value = try Self.decode(pair[pair.index(after: equals)...], part: "parameter \(key)")
            } else {
                throw .invalid("the parameter \(Self.printable(pair)) has no value")
            }
            guard Self.allowedParameters.contains(key) else {
                throw .invalid("unknown connection parameter \(Self.printable(Substring(key))) (allowed: \(Self.allowedParameters.sorted().joined(separator: ", ")))")
            }
            switch key {
            case "host": host = value
            case "port": port = try Self.port(Substring(value))
            case "dbname": database = value
            case "user": user = value
            default: parameters[key] = value
            }
        }
        if let host, host.contains("/"), !host.hasPrefix("/") {
            throw .invalid("a Unix-socket host must be an absolute directory, such as ?host=/run/postgresql")
        }
    }

    /// libpq's keywords and values for `PQconnectdbParams`, `extra` added (and overriding).
    ///
    /// What the URL leaves out, libpq takes from its usual places: a password from `~/.pgpass`
    /// (or `PGPASSFILE`), which keeps it off the command line, where `ps` would show it.
    func connectionKeywords(_ extra: [String: String] = [:]) -> [(String, String)] {
        var keywords: [String: String] = parameters
        if let user { keywords["user"] = user }
        if let password { keywords["password"] = password }
        if let host { keywords["host"] = host }
        if let port { keywords["port"] = String(port) }
        if let database { keywords["dbname"] = database }
        for (key, value) in extra { keywords[key] = value }
        return keywords.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The URL with `database` in place of this one's (tests connect to a database they made).
    func with(database: String) -> PostgresURL {
        var copy = self
        copy.database = database
        return copy
    }

    /// The URL for logs and errors: every part but the password, which shows as `***`.
    var description: String {
        var text = "postgresql://"
        if let user {
            text += Self.encode(user)
            if password != nil { text += ":***" }
            text += "@"
        }
        if let host, !host.hasPrefix("/") {
            text += host.contains(":") ? "[\(host)]" : Self.encode(host)
        }
        if let port { text += ":\(port)" }
        if let database { text += "/" + Self.encode(database) }
        var query: [String] = []
        if let host, host.hasPrefix("/") { query.append("host=" + Self.encode(host)) }
        query += parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.encode($0.value))" }
        if !query.isEmpty { text += "?" + query.joined(separator: "&") }
        return text
    }

    private static func port(_ text: Substring) throws(PostgresURLError) -> Int {
        guard let port = Int(text), (1...65_535).contains(port) else {
            throw .invalid("the port \(printable(text)) is not a number from 1 to 65535")
        }
        return port
    }

    /// Percent-decodes one part; a malformed escape or invalid UTF-8 is refused, naming the part
    /// (not quoting it: it may be the password).
    private static func decode(_ text: Substring, part: String) throws(PostgresURLError) -> String {
        guard let decoded = String(text).removingPercentEncoding else {
            throw .invalid("the \(part) has a malformed percent escape")
        }
        guard !decoded.contains("\u{0}") else { throw .invalid("the \(part) contains a NUL character") }
        return decoded
    }

    private static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// A short, control-free rendering of a part that is never the password.
    private static func printable(_ text: Substring) -> String {
        let scalars = text.prefix(40).unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }
        return "\"" + String(String.UnicodeScalarView(scalars)) + "\""
    }
}

/// Why a `--db` value is not a usable PostgreSQL URL. Never contains the password.
enum PostgresURLError: Error, Equatable, CustomStringConvertible {
    /// The value does not start with `postgres://` or `postgresql://`.
    case notPostgres
    /// The URL is malformed; the message says where.
    case invalid(String)

    var description: String {
        switch self {
        case .notPostgres: "not a PostgreSQL URL (postgres://USER@HOST/DB or postgresql://...)"
        case .invalid(let message): "invalid PostgreSQL URL: \(message)"
        }
    }
}

extension PostgresURL {
    /// The URL with `notes.content_store` set to `store` on every connection (libpq's `options`,
    /// after any the URL has): how a server with an S3 content store tells schema version 25's
    /// trigger that content bytes are not in the database.
    func withContentStoreSetting(_ store: String) -> PostgresURL {
        var copy = self
        let setting = "-c notes.content_store=\(store)"
        copy.parameters["options"] = parameters["options"].map { "\($0) \(setting)" } ?? setting
        return copy
    }
}
