import NotesCore

/// PROPFIND (RFC 4918 §9.1) with Depth 0 and 1; infinity is refused (`propfind-finite-depth`).
/// A Depth 1 listing is written member by member as the folder is read page by page
/// (`NoteStore.eachMember`, `DAVMultistatusWriter`), so a folder of any size costs bounded memory.
extension WebDAVResponder {
    func propfind(_ call: Call) throws -> HTTPResponse {
        let depth = call.request.headers["Depth"]?.lowercased() ?? "infinity"
        guard depth == "0" || depth == "1" else {
            throw HTTPError(403, code: "propfind-finite-depth", message: "PROPFIND answers Depth 0 or 1; list a folder level by level.")
        }
        let asked = try DAVPropfindRequest(body: call.request.body)
        guard let resource = try resource(at: call.location, userID: call.userID) else {
            throw HTTPError.notFound("Nothing is at \(call.location.path).")
        }
        var writer = DAVMultistatusWriter(temporaryFolder: temporaryFolder)
        let quota = quotaReader(userID: call.userID)
        var deadProperties = try deadPropertiesOfFolder(call, resource: resource, depth: depth)
        func describe(_ resource: DAVResource, at location: DAVLocation, writer: inout DAVMultistatusWriter) throws {
            let live = DAVLiveProperties(resource: resource, location: location,
                                         locks: location.space == nil ? [] : locks.covering(userID: call.userID, space: DAVSpace.storedKey, path: location.path),
                                         now: notes.clock.now(), quota: quota)
            let dead = deadProperties.removeValue(forKey: location.path) ?? []
            try writer.response(href: location.href(folder: resource.isFolder),
                                propstats: Self.propstats(asked, live: live, dead: location.space == nil ? [] : dead))
        }
        try describe(resource, at: call.location, writer: &writer)
        if depth == "1" && resource.isFolder {
            if call.location.space == nil {
                for space in try spaces.readable(by: call.principal) {
                    try describe(.folder(createdAt: nil), at: DAVLocation(space: space.name, path: ""), writer: &writer)
                }
            } else {
                try listMembers(call) { member, location in try describe(member, at: location, writer: &writer) }
            }
        }
        return try writer.finish()
    }

    /// Hands `body` each member of the folder `call` names: its files and subfolders, then the
    /// folders WebDAV made that hold nothing yet.
    private func listMembers(_ call: Call, _ body: (DAVResource, DAVLocation) throws -> Void) throws {
        let space = try call.requireSpace()
        var listedFolders = Set<String>()
        try notes.eachMember(userID: call.userID, folder: call.location.path) { member in
            switch member {
            case .file(let entry):
                try body(.file(entry), DAVLocation(space: space.name, path: entry.path))
            case .folder(let name):
                listedFolders.insert(name)
                try body(.folder(createdAt: nil), call.location.child(name))
            }
        }
        let made = try notes.database.read { db in
            try DAVFolderStore.folders(db, userID: call.userID, space: DAVSpace.storedKey, inside: call.location.path)
        }
        let prefixLength = call.location.path.isEmpty ? 0 : call.location.path.count + 1
        for path in made {
            let name = String(path.dropFirst(prefixLength))
            guard !name.contains("/"), listedFolders.insert(name).inserted else { continue }
            let createdAt = try notes.database.read { db in try DAVFolderStore.createdAt(db, userID: call.userID, space: DAVSpace.storedKey, path: path) }
            try body(.folder(createdAt: createdAt), DAVLocation(space: space.name, path: path))
        }
    }

    /// The dead properties of the resource and, for Depth 1, of its members, read at once by path.
    private func deadPropertiesOfFolder(_ call: Call, resource: DAVResource, depth: String) throws -> [String: [(name: DAVPropertyStore.Name, xml: String)]] {
        guard call.space != nil else { return [:] }
        return try notes.database.read { db in
            var found: [String: [(name: DAVPropertyStore.Name, xml: String)]] = [:]
            found[call.location.path] = try DAVPropertyStore.properties(db, userID: call.userID, space: DAVSpace.storedKey, path: call.location.path)
            if depth == "1" && resource.isFolder {
                for (path, properties) in try DAVPropertyStore.childProperties(db, userID: call.userID, space: DAVSpace.storedKey, folder: call.location.path) {
                    found[path] = properties
                }
            }
            return found
        }
    }

    /// The `propstat` groups of one response: what was found (200) and what was not (404).
    static func propstats(_ asked: DAVPropfindRequest, live: DAVLiveProperties,
                          dead: [(name: DAVPropertyStore.Name, xml: String)]) -> [(status: Int, properties: [String])] {
        switch asked {
        case .allProperties:
            return [(200, live.all + dead.map(\.xml))]
        case .names:
            return [(200, live.names + dead.map { DAVLiveProperties.emptyElement($0.name) })]
        case .properties(let names):
            var found: [String] = []
            var missing: [String] = []
            for name in names {
                if name.namespace == "DAV:", let value = live.xml(name.name) {
                    found.append(value)
                } else if let value = dead.first(where: { $0.name == name }) {
                    found.append(value.xml)
                } else {
                    missing.append(DAVLiveProperties.emptyElement(name))
                }
            }
            return [(200, found), (404, missing)]
        }
    }

    /// Reads the caller's content usage and quota once, when a quota property is first asked for.
    private func quotaReader(userID: Int64) -> () -> (used: Int, available: Int?) {
        let contents = self.contents
        var cached: (used: Int, available: Int?)?
        return {
            if let cached { return cached }
            let used = (try? contents.usage(userID: userID)) ?? 0
            let value = (used, contents.limits.quotaBytes.map { max(0, $0 - used) })
            cached = value
            return value
        }
    }
}
