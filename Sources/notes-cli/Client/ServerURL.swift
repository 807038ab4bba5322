import Foundation
import NotesCommandLine

/// A Notes server's base URL in one canonical spelling, so `HTTPS://Host:443/` and
/// `https://host` name the same credentials entry.
///
/// Canonical form: lowercase scheme and host, no default port, no trailing slash, no query or
/// fragment. A path is kept, so a server behind a reverse proxy at `https://example.com/notes`
/// works. A bare host (`notes.example.com`) means HTTPS: we never guess plain HTTP for a password.
/// A bare host with a port (`127.0.0.1:8080`) is refused: such servers are as often plain HTTP
/// as HTTPS, and guessing wrong ends in a TLS error that does not say what is wrong.
struct ServerURL: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The canonical spelling, used as the credentials key and in messages.
    let string: String

    /// Parses and normalises `raw`.
    /// - Throws: `UsageError` when `raw` is not an http(s) URL with a host.
    init(_ raw: String) throws {
        var text = raw.trimmingCharacters(in: .whitespaces)
        if !text.contains("://") {
            if let port = URLComponents(string: "https://" + text)?.port {
                throw UsageError("'\(raw)' has no scheme: write http://\(text) for a plain HTTP server "
                    + "or https://\(text) for HTTPS (port \(port) does not tell which)")
            }
            text = "https://" + text
        }
        guard let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host?.lowercased(), !host.isEmpty else {
            throw UsageError("'\(raw)' is not a server URL such as https://notes.example.com")
        }
        guard components.query == nil, components.fragment == nil, components.user == nil else {
            throw UsageError("a server URL has no query, fragment or user name: '\(raw)'")
        }
        // An IPv6 host needs brackets; Foundation on Linux already keeps them, macOS drops them.
        var result = scheme + "://" + (host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host)
        if let port = components.port, !(scheme == "http" && port == 80), !(scheme == "https" && port == 443) {
            result += ":\(port)"
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        result += path
        string = result
    }

    /// The URL of `path` (which starts with `/`, already percent-encoded) on this server.
    func url(path: String, query: [(String, String)] = []) -> URL? {
        var text = string + path
        if !query.isEmpty {
            text += "?" + query.map { Self.encodeQueryPart($0.0) + "=" + Self.encodeQueryPart($0.1) }.joined(separator: "&")
        }
        return URL(string: text)
    }

    /// Whether traffic to this server can be read on the way: plain HTTP to anything but loopback.
    var isInsecure: Bool {
        guard string.hasPrefix("http://") else { return false }
        let host = URLComponents(string: string)?.host ?? ""
        return !(host == "localhost" || host == "::1" || host.hasPrefix("127."))
    }

    var description: String { string }

    static func < (lhs: ServerURL, rhs: ServerURL) -> Bool { lhs.string < rhs.string }

    /// Percent-encodes everything but RFC 3986 unreserved characters. Stricter than
    /// `URLComponents`, which leaves `+` alone (many servers read it as a space) and `&`/`=` in values.
    static func encodeQueryPart(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// Percent-encodes one path segment, such as a token id.
    static func encodePathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
