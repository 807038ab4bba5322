import NotesCore

/// DELETE and MKCOL: a file or a whole folder to the trash (every entry in it a tombstone that
/// `notes restore` and the web app's trash bring back), and a new empty folder.
extension WebDAVResponder {
    func delete(_ call: Call) throws -> HTTPResponse {
        let space = try call.requireWrite()
        guard !call.location.path.isEmpty else {
            throw HTTPError(403, code: "space_root", message: "A space's root cannot be deleted; delete what is inside it.")
        }
        guard let resource = try resource(at: call.location, userID: space.userID) else {
            throw HTTPError.notFound("Nothing is at \(call.location.path).")
        }
        try checkConditions(call, location: call.location, resource: resource, deep: true)
        try removeResource(call, at: call.location, resource: resource)
        return DAVResponse.empty(204)
    }

    /// Sends `resource` at `location` to the trash, with its folder rows, dead properties and
    /// locks, in one transaction.
    func removeResource(_ call: Call, at location: DAVLocation, resource: DAVResource) throws {
        try writeEntries(call) { db in
            try removeResource(db, call: call, at: location, resource: resource)
        }
        locks.releaseAll(userID: call.userID, space: DAVSpace.storedKey, under: location.path)
    }

    /// `removeResource` inside the caller's transaction.
    func removeResource(_ db: any SQLConnection, call: Call, at location: DAVLocation, resource: DAVResource) throws {
        let entries = resource.isFolder ? try NoteStore.entries(db, userID: call.userID, inside: location.path) : resource.entry.map { [$0] } ?? []
        for entry in entries {
            _ = try notes.delete(db, userID: call.userID, id: entry.id, ifMatch: entry.rev, device: call.principal.device)
        }
        if resource.isFolder { try DAVFolderStore.remove(db, userID: call.userID, space: DAVSpace.storedKey, path: location.path) }
        try DAVPropertyStore.removeAll(db, userID: call.userID, space: DAVSpace.storedKey, under: location.path)
    }

    func mkcol(_ call: Call) throws -> HTTPResponse {
        let space = try call.requireWrite()
        guard call.request.body.isEmpty else {
            throw HTTPError(415, code: "unsupported_body", message: "MKCOL takes no body.")
        }
        guard !call.location.path.isEmpty, try resource(at: call.location, userID: space.userID) == nil else {
            throw HTTPError(405, code: "exists", message: "Something is already at \(call.location.path).",
                            headers: ["Allow": Self.methods.filter { $0 != "MKCOL" }.joined(separator: ", ")])
        }
        try requireParentFolder(call.location, userID: space.userID)
        try checkConditions(call, location: call.location, resource: nil, deep: false)
        let path = try Self.entryPath(call.location.path, isNew: true)
        try notes.database.write { db in
            try DAVFolderStore.make(db, userID: space.userID, space: DAVSpace.storedKey, path: path.value, now: notes.clock.now())
        }
        return DAVResponse.empty(201)
    }
}
