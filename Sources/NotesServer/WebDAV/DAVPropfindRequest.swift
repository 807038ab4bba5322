/// What a PROPFIND asks for (RFC 4918 §9.1): every property, only their names, or the named ones.
enum DAVPropfindRequest: Equatable {
    case allProperties
    case names
    case properties([DAVPropertyStore.Name])

    /// Reads a PROPFIND body; an empty body asks for every property.
    /// - Throws: 400 for a body that is not a `propfind` element.
    init(body: [UInt8]) throws(HTTPError) {
        guard !body.isEmpty else {
            self = .allProperties
            return
        }
        let root = try DAVXMLElement.parse(body)
        guard root.isNamed("DAV:", "propfind") else {
            throw HTTPError.badRequest("A PROPFIND body must be a DAV: propfind element.", code: "invalid_propfind")
        }
        if let prop = root.child("DAV:", "prop") {
            self = .properties(prop.children.map { DAVPropertyStore.Name(namespace: $0.namespace, name: $0.name) })
        } else if root.child("DAV:", "propname") != nil {
            self = .names
        } else if root.child("DAV:", "allprop") != nil {
            self = .allProperties
        } else {
            throw HTTPError.badRequest("A propfind names allprop, propname or prop.", code: "invalid_propfind")
        }
    }
}
