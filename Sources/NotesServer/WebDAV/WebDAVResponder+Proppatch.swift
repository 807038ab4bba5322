import NotesCore

/// PROPPATCH (RFC 4918 §9.2): sets and removes dead properties, all or nothing. Live
/// properties are the server's (`cannot-modify-protected-property`, 403); when one instruction
/// fails, none is applied and the others answer 424.
extension WebDAVResponder {
    /// The largest dead property value kept, in bytes of XML.
    static let maxPropertyBytes = 64 * 1024

    func proppatch(_ call: Call) throws -> HTTPResponse {
        let space = try call.requireWrite()
        guard let resource = try resource(at: call.location, userID: space.userID), call.location.space != nil else {
            throw HTTPError.notFound("Nothing is at \(call.location.path).")
        }
        try checkConditions(call, location: call.location, resource: resource, deep: false)
        let root = try DAVXMLElement.parse(call.request.body)
        guard root.isNamed("DAV:", "propertyupdate") else {
            throw HTTPError.badRequest("A PROPPATCH body must be a DAV: propertyupdate element.", code: "invalid_proppatch")
        }
        var instructions: [(set: Bool, property: DAVXMLElement)] = []
        for instruction in root.children where instruction.namespace == "DAV:" && (instruction.name == "set" || instruction.name == "remove") {
            for prop in instruction.children where prop.isNamed("DAV:", "prop") {
                for property in prop.children { instructions.append((instruction.name == "set", property)) }
            }
        }
        var refused: [(DAVPropertyStore.Name, Int)] = []
        for (_, property) in instructions {
            if property.namespace == "DAV:" && DAVLiveProperties.protectedNames.contains(property.name) {
                refused.append((DAVPropertyStore.Name(namespace: property.namespace, name: property.name), 403))
            } else if property.xml.utf8.count > Self.maxPropertyBytes {
                refused.append((DAVPropertyStore.Name(namespace: property.namespace, name: property.name), 507))
            }
        }
        let names = instructions.map { DAVPropertyStore.Name(namespace: $0.property.namespace, name: $0.property.name) }
        var writer = DAVMultistatusWriter(temporaryFolder: temporaryFolder)
        if refused.isEmpty {
            try notes.database.write { db in
                for (set, property) in instructions {
                    let name = DAVPropertyStore.Name(namespace: property.namespace, name: property.name)
                    if set {
                        try DAVPropertyStore.set(db, userID: space.userID, space: DAVSpace.storedKey, path: call.location.path, name: name, xml: property.xml)
                    } else {
                        try DAVPropertyStore.remove(db, userID: space.userID, space: DAVSpace.storedKey, path: call.location.path, name: name)
                    }
                }
            }
            try writer.response(href: call.location.href(folder: resource.isFolder),
                                propstats: [(200, names.map(DAVLiveProperties.emptyElement))])
        } else {
            var groups: [Int: [String]] = [:]
            for name in names {
                let status = refused.first { $0.0 == name }?.1 ?? 424
                groups[status, default: []].append(DAVLiveProperties.emptyElement(name))
            }
            try writer.response(href: call.location.href(folder: resource.isFolder),
                                propstats: groups.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        }
        return try writer.finish()
    }
}
