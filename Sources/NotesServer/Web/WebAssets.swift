import NotesCore

/// The web app's static files: compiled into the binary from `Web/Assets/` (SwiftPM
/// `embedInCode`), served under a URL that carries a hash of their content
/// (`/assets/notes.3f2a9c1b0d4e.css`) with a one-year immutable cache lifetime. A changed file
/// gets a new URL with the next build, so a browser never runs a stale copy, and nothing has to
/// be installed beside the binary (`scripts/install` copies one file).
struct WebAsset: Sendable {
    let name: String
    let mediaType: String
    let bytes: [UInt8]
    /// The first 12 hex digits of the content's SHA-256.
    let hash: String

    init(name: String, mediaType: String, bytes: [UInt8]) {
        self.name = name
        self.mediaType = mediaType
        self.bytes = bytes
        hash = String(SHA256.hex(of: bytes).prefix(12))
    }

    /// Where every asset is served: these, and the page assets (`PageAssets`) under their own names.
    static let folder = WebPath("/assets")

    /// The versioned URL pages link to.
    var path: WebPath {
        let dot = name.lastIndex(of: ".") ?? name.endIndex
        return Self.folder.appending(name[..<dot] + "." + hash + name[dot...])
    }

    /// The web app's stylesheet, then the rendered note's (callouts, tasks, tags, code tokens:
    /// `NotesStylesheet.noteContent`), the same as export's and published pages'.
    static let stylesheet = WebAsset(name: "notes.css", mediaType: "text/css; charset=utf-8",
                                     bytes: PackageResources.notes_css + Array(NotesStylesheet.noteContent.utf8))
    static let script = WebAsset(name: "notes.js", mediaType: "text/javascript; charset=utf-8", bytes: PackageResources.notes_js)
    /// The upload form's chunked upload (with its own SHA-256).
    static let uploadScript = WebAsset(name: "upload.js", mediaType: "text/javascript; charset=utf-8", bytes: PackageResources.upload_js)
    static let all = [stylesheet, script, uploadScript]

    /// The asset a versioned file name (the last segment of `path`) names, if it is current.
    static func find(versionedName: String) -> WebAsset? {
        all.first { $0.path.value == "/assets/" + versionedName }
    }

    /// The answer: immutable for a year, since its URL changes whenever its bytes do.
    var response: HTTPResponse {
        Self.immutable(bytes, mediaType: mediaType, hash: hash)
    }

    /// An answer the browser may keep for a year without asking again: for a URL that names
    /// its content's hash.
    static func immutable(_ bytes: [UInt8], mediaType: String, hash: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [
            "Content-Type": mediaType,
            "Cache-Control": "public, max-age=31536000, immutable",
            "ETag": "\"\(hash)\"",
        ], body: bytes)
    }
}
