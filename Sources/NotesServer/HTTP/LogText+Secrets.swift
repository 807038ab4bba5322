extension LogText {
    /// `path` as the request log shows it: escaped, with the secret of a published note's link
    /// (`/p/<token>`, and addresses under it) replaced by `<token>`. The link is the only
    /// credential a reader needs, so it must not be readable by whoever reads the logs.
    static func loggedPath(_ path: String) -> String {
        guard path.hasPrefix("/p/") else { return escaped(path) }
        let rest = path.dropFirst(3)
        let tail = rest.firstIndex(of: "/").map { rest[$0...] } ?? ""
        return "/p/<token>" + escaped(String(tail))
    }
}
