/// A WebDAV write lock (RFC 4918 §6, §9.10): who holds which resource, how deep, until when.
struct DAVLock: Sendable, Equatable {
    /// `opaquelocktoken:<uuid>`, the token clients send back in `If` and `Lock-Token`.
    let token: String
    let userID: Int64
    let space: String
    /// The locked resource's path in its space (`""`: the space's root).
    var path: String
    /// Whether the lock covers everything inside a locked folder (`Depth: infinity`).
    let deep: Bool
    let exclusive: Bool
    /// The `<D:owner>` the client gave, as XML; empty when none.
    let ownerXML: String
    /// Seconds the lock lasts from its last refresh.
    var timeoutSeconds: Int
    /// When it ends (server clock milliseconds); it is gone from that moment on.
    var expiresAt: Int64

    /// Whether this lock covers `path` of `space`: the resource itself or, for a deep lock,
    /// anything inside it.
    func covers(space: String, path: String) -> Bool {
        guard space == self.space else { return false }
        if path == self.path { return true }
        return deep && (self.path.isEmpty || path.hasPrefix(self.path + "/"))
    }

    /// Whether this lock lies on `path` of `space` or anything inside it (what deleting or
    /// moving the folder `path` would take away).
    func isInside(space: String, path: String) -> Bool {
        space == self.space && (path.isEmpty || self.path == path || self.path.hasPrefix(path + "/"))
    }

    /// `<D:activelock>` as `lockdiscovery` and a LOCK answer show it.
    func activeLockXML(root href: String, now: Int64) -> String {
        let remaining = max(0, (expiresAt - now + 999) / 1000)
        return "<D:activelock><D:locktype><D:write/></D:locktype><D:lockscope>" + (exclusive ? "<D:exclusive/>" : "<D:shared/>")
            + "</D:lockscope><D:depth>" + (deep ? "infinity" : "0") + "</D:depth>" + ownerXML
            + "<D:timeout>Second-\(remaining)</D:timeout><D:locktoken><D:href>" + token + "</D:href></D:locktoken>"
            + "<D:lockroot><D:href>" + DAVXMLText.escape(href) + "</D:href></D:lockroot></D:activelock>"
    }
}
