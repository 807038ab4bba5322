/// The link destinations safe mode refuses, decided exactly as cmark decides them (its
/// `_scan_dangerous_url`): `javascript:`, `vbscript:`, `file:`, and `data:` except the four
/// plain image types. Letter case does not matter.
public enum LinkSafety {
    private static let refusedSchemes = ["javascript:", "vbscript:", "file:", "data:"]
    private static let allowedData = ["data:image/png", "data:image/gif", "data:image/jpeg", "data:image/webp"]

    /// Whether safe mode refuses `url`.
    public static func isRefused(_ url: String) -> Bool {
        let head = String(decoding: url.utf8.prefix(16).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        guard let scheme = refusedSchemes.first(where: head.hasPrefix) else { return false }
        return scheme != "data:" || !allowedData.contains(where: head.hasPrefix)
    }
}
