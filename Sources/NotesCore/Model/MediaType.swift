/// The media type an entry is served with, from a fixed table by extension: never sniffed from
/// content, so a file cannot pick how a browser treats it by what it contains.
///
/// The server's `GET /v1/attachments/{id}`, `notes export` and the web app all use this one
/// table. `isSafeInline` says whether a browser may show the file in place: only plain images
/// and PDF; everything a browser could execute or interpret (HTML, SVG, XML, JavaScript, and
/// anything unknown) is served as a download.
public struct MediaType: Hashable, Sendable, CustomStringConvertible {
    /// The `Content-Type` value, such as `image/png`.
    public let value: String
    /// Whether the file may be shown inline (`Content-Disposition: inline`).
    public let isSafeInline: Bool

    public init(value: String, isSafeInline: Bool) {
        self.value = value
        self.isSafeInline = isSafeInline
    }

    public var description: String { value }

    /// What a file of unknown type is served as: bytes, as a download.
    public static let octetStream = MediaType(value: "application/octet-stream", isSafeInline: false)

    /// The media type for `path` by its extension (any letter case); unknown extensions and
    /// names without one are `application/octet-stream`.
    public static func forPath(_ path: String) -> MediaType {
        let ext = lowercasedExtension(of: path)
        if let inline = inlineTypes[ext] { return MediaType(value: inline, isSafeInline: true) }
        if let download = downloadTypes[ext] { return MediaType(value: download, isSafeInline: false) }
        return octetStream
    }

    /// The extension of the last segment of `path`, lowercased, without the dot; empty if none.
    public static func lowercasedExtension(of path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// Plain images and PDF: shown in place.
    static let inlineTypes: [String: String] = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "avif": "image/avif", "bmp": "image/bmp", "ico": "image/vnd.microsoft.icon",
        "pdf": "application/pdf",
    ]

    /// Known types that are still served as a download: anything a browser could run or
    /// interpret as a page (HTML, SVG, XML, JavaScript, CSS), and the rest for a correct label.
    static let downloadTypes: [String: String] = [
        "md": "text/markdown; charset=utf-8", "markdown": "text/markdown; charset=utf-8",
        "html": "text/html", "htm": "text/html", "xhtml": "application/xhtml+xml",
        "svg": "image/svg+xml", "xml": "application/xml", "js": "text/javascript", "mjs": "text/javascript",
        "css": "text/css", "json": "application/json", "txt": "text/plain", "csv": "text/csv",
        "tif": "image/tiff", "tiff": "image/tiff", "heic": "image/heic",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "ogg": "audio/ogg", "oga": "audio/ogg", "wav": "audio/wav",
        "flac": "audio/flac", "opus": "audio/opus", "mp4": "video/mp4", "m4v": "video/mp4", "webm": "video/webm",
        "mov": "video/quicktime", "mkv": "video/x-matroska",
        "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar", "7z": "application/x-7z-compressed",
        "epub": "application/epub+zip", "rtf": "application/rtf",
        "doc": "application/msword", "xls": "application/vnd.ms-excel", "ppt": "application/vnd.ms-powerpoint",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text", "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
    ]
}
