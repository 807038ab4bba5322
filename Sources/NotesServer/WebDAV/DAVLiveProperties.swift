import NotesCore

/// The live properties of a resource (RFC 4918 §15, RFC 4331's quota) written as XML, and a
/// property's element for a name alone.
struct DAVLiveProperties {
    /// The live properties `allprop` returns, in order.
    static let allPropNames = ["creationdate", "displayname", "getcontentlength", "getcontenttype", "getetag", "getlastmodified",
                               "resourcetype", "supportedlock", "lockdiscovery"]
    /// Computed on request only (RFC 4331 §3: not part of `allprop`).
    static let quotaNames = ["quota-available-bytes", "quota-used-bytes"]
    /// Properties a client may not set or remove.
    static let protectedNames = Set(allPropNames + quotaNames)

    /// The media type of notes, as GET serves them.
    static let noteContentType = "text/markdown; charset=utf-8"

    let resource: DAVResource
    let location: DAVLocation
    /// The locks covering the resource, for `lockdiscovery`.
    let locks: [DAVLock]
    let now: Int64
    /// The quota figures, read only when asked for: (used, available or nil without a quota).
    let quota: () -> (used: Int, available: Int?)

    /// The value of the DAV: property `name`, as its element; nil when the resource has none.
    func xml(_ name: String) -> String? {
        switch (name, resource) {
        case ("resourcetype", .file): return "<D:resourcetype/>"
        case ("resourcetype", _): return "<D:resourcetype><D:collection/></D:resourcetype>"
        case ("displayname", _): return element(name, DAVXMLText.escape(location.name))
        case ("getcontentlength", .file(let entry)): return element(name, "\(entry.size)")
        case ("getcontenttype", .file(let entry)):
            return element(name, entry.kind == .note ? Self.noteContentType : MediaType.forPath(entry.path).value)
        case ("getetag", .file(let entry)): return element(name, DAVXMLText.escape(DAVConditions.etag(entry)))
        case ("getlastmodified", .file(let entry)): return element(name, DAVDate.http(fromMilliseconds: entry.updatedAt))
        case ("getlastmodified", .folder(let createdAt?)): return element(name, DAVDate.http(fromMilliseconds: createdAt))
        case ("creationdate", .file(let entry)): return element(name, WireTime.string(fromMilliseconds: entry.createdAt))
        case ("creationdate", .folder(let createdAt?)): return element(name, WireTime.string(fromMilliseconds: createdAt))
        case ("supportedlock", .root): return nil
        case ("supportedlock", _):
            let entry = { (scope: String) in "<D:lockentry><D:lockscope><D:\(scope)/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>" }
            return element(name, entry("exclusive") + entry("shared"))
        case ("lockdiscovery", .root): return nil
        case ("lockdiscovery", _):
            return element(name, locks.map { $0.activeLockXML(root: lockRootHref($0), now: now) }.joined())
        case ("quota-used-bytes", .folder), ("quota-used-bytes", .root):
            return element(name, "\(quota().used)")
        case ("quota-available-bytes", .folder), ("quota-available-bytes", .root):
            guard let available = quota().available else { return nil }
            return element(name, "\(available)")
        default: return nil
        }
    }

    /// Every live property the resource has, for `allprop`.
    var all: [String] {
        Self.allPropNames.compactMap { xml($0) }
    }

    /// The names alone, for `propname`.
    var names: [String] {
        Self.allPropNames.filter { xml($0) != nil }.map { "<D:\($0)/>" }
    }

    private func element(_ name: String, _ value: String) -> String {
        "<D:\(name)>\(value)</D:\(name)>"
    }

    private func lockRootHref(_ lock: DAVLock) -> String {
        DAVLocation(space: location.space, path: lock.path).href(folder: resource.isFolder && lock.path == location.path)
    }

    /// An empty element naming the property `name` (a property not found, or a name listed).
    static func emptyElement(_ name: DAVPropertyStore.Name) -> String {
        if name.namespace == "DAV:" { return "<D:\(name.name)/>" }
        return "<\(name.name) xmlns=\"\(DAVXMLText.escape(name.namespace))\"/>"
    }
}
