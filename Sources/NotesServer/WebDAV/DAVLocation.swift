import Foundation
import NotesCore

/// Where a WebDAV request points, read from its path: the root `/dav/`, a space's root
/// `/dav/<space>/`, or a folder or file inside a space (docs/architecture.md §3.7).
///
/// The HTTP layer hands paths over already percent-decoded, so `path` is the entry path as
/// stored (`notes/today.md`), without leading or trailing slash; `""` is the space's root.
struct DAVLocation: Sendable, Equatable {
    /// Where the WebDAV tree starts.
    static let prefix = "/dav"

    /// The space's name; nil for the root, which lists the spaces.
    let space: String?
    /// The path inside the space; `""` for its root.
    let path: String
    /// Whether the request named it as a folder (`…/`).
    let endsInSlash: Bool

    init(space: String?, path: String, endsInSlash: Bool = false) {
        self.space = space
        self.path = path
        self.endsInSlash = endsInSlash
    }

    /// The location of a request path, or nil when it is not under `/dav`.
    init?(requestPath: String) {
        guard requestPath == Self.prefix || requestPath.hasPrefix(Self.prefix + "/") else { return nil }
        let rest = requestPath.dropFirst(Self.prefix.count)
        let segments = rest.split(separator: "/", omittingEmptySubsequences: true)
        endsInSlash = rest.hasSuffix("/")
        guard let first = segments.first else {
            space = nil
            path = ""
            return
        }
        space = String(first)
        path = segments.dropFirst().joined(separator: "/")
    }

    /// Whether this is the root or a space's root, never a file.
    var isRoot: Bool { space == nil || path.isEmpty }

    /// The last segment: the name clients show.
    var name: String {
        guard let space else { return "" }
        guard let slash = path.lastIndex(of: "/") else { return path.isEmpty ? space : path }
        return String(path[path.index(after: slash)...])
    }

    /// The folder holding this location (the space's root for a top-level entry).
    var parent: DAVLocation {
        guard let slash = path.lastIndex(of: "/") else { return DAVLocation(space: path.isEmpty ? nil : space, path: "") }
        return DAVLocation(space: space, path: String(path[..<slash]))
    }

    /// A location inside this folder.
    func child(_ relative: String) -> DAVLocation {
        DAVLocation(space: space, path: path.isEmpty ? relative : path + "/" + relative)
    }

    /// Whether `other` is this location or lies inside it.
    func contains(_ other: DAVLocation) -> Bool {
        guard space == other.space else { return space == nil }
        return path.isEmpty || other.path == path || other.path.hasPrefix(path + "/")
    }

    /// `other`'s path with this location's path replaced by `destination`'s (a moved subtree).
    func rebase(_ other: String, onto destination: DAVLocation) -> String {
        guard other != path else { return destination.path }
        let tail = path.isEmpty ? other : String(other.dropFirst(path.count + 1))
        return destination.path.isEmpty ? tail : destination.path + "/" + tail
    }

    /// The absolute URL path clients are given for this location, each segment percent-encoded;
    /// a folder's ends in `/`.
    func href(folder: Bool) -> String {
        var href = Self.prefix + "/"
        guard let space else { return href }
        href += Self.encode(space) + "/"
        guard !path.isEmpty else { return href }
        href += path.split(separator: "/").map { Self.encode(String($0)) }.joined(separator: "/")
        return folder ? href + "/" : href
    }

    /// `segment` with every byte outside RFC 3986's unreserved characters percent-encoded.
    static func encode(_ segment: String) -> String {
        var encoded = ""
        encoded.reserveCapacity(segment.utf8.count)
        for byte in segment.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(digits[Int(byte >> 4)])
                encoded.unicodeScalars.append(digits[Int(byte & 0xF)])
            }
        }
        return encoded
    }

    /// The location a `Destination` header names (RFC 4918 §10.3): an absolute URL on this
    /// server or an absolute path, percent-encoded.
    /// - Throws: 400 for a header that is no URL, 502 for one on another server or outside `/dav`.
    init(destination header: String?, host: String?) throws(HTTPError) {
        guard let header, !header.isEmpty else {
            throw HTTPError.badRequest("COPY and MOVE need a Destination header.", code: "missing_destination")
        }
        var encodedPath = header
        if let schemeEnd = header.range(of: "://") {
            let afterScheme = header[schemeEnd.upperBound...]
            let authority = afterScheme.prefix { $0 != "/" }
            if let host, !host.isEmpty, authority.lowercased() != host.lowercased() {
                throw HTTPError(502, code: "other_server", message: "The Destination names another server; copy and move stay on this one.")
            }
            encodedPath = String(afterScheme.dropFirst(authority.count))
        }
        if let query = encodedPath.firstIndex(where: { $0 == "?" || $0 == "#" }) { encodedPath = String(encodedPath[..<query]) }
        guard encodedPath.hasPrefix("/"), let decoded = encodedPath.removingPercentEncoding, !decoded.contains("\u{0}"),
              let location = DAVLocation(requestPath: decoded) else {
            throw HTTPError(502, code: "destination_outside", message: "The Destination must be a path under \(Self.prefix)/ on this server.")
        }
        self = location
    }
}
