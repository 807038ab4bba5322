/// One file a rendered page loads to typeset math or highlight code: a file of Debian's
/// `libjs-katex` or `libjs-highlight.js`, or the script of ours that calls them.
///
/// The server serves it at `/assets/` + `name`, export copies it to `assets/` + `name`; the
/// name carries a hash of the content (of the whole library for a library's files, whose
/// stylesheet finds its fonts by relative address), so an address never serves other bytes and
/// browsers may keep it for a year.
public struct PageAsset: Sendable, Equatable {
    /// The relative path it is served and copied under: `katex.3f2a9c1b0d4e/katex.min.css`.
    public let name: String
    /// Where it was read from (`/usr/share/javascript/katex/katex.min.css`), or nil for our own
    /// script, compiled into the program.
    public let source: String?
    /// The `Content-Type` it is served with.
    public let mediaType: String
    public let bytes: [UInt8]
    /// The first 12 hex digits of the content's SHA-256 (an `ETag`).
    public let hash: String

    init(name: String, source: String?, bytes: [UInt8]) {
        self.name = name
        self.source = source
        self.mediaType = Self.mediaType(of: name)
        self.bytes = bytes
        hash = String(SHA256.hex(of: bytes).prefix(12))
    }

    /// The media type of a file by its extension: only the kinds a page asset has.
    static func mediaType(of name: String) -> String {
        if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
        if name.hasSuffix(".woff2") { return "font/woff2" }
        return "application/octet-stream"
    }
}
