import NotesCore

/// COPY and MOVE (RFC 4918 §9.8, §9.9) within a space. A MOVE is a rename: every entry keeps
/// its id and history, as a rename through sync does; a COPY makes new entries with the same
/// bytes (an attachment's content is shared, not stored again). `Overwrite: F` refuses an
/// occupied destination (412); otherwise what was there goes to the trash first. The whole
/// operation is one transaction: it happens entirely or not at all.
extension WebDAVResponder {
    func copyOrMove(_ call: Call, move: Bool) throws -> HTTPResponse {
        let space = try call.requireWrite()
        let source = call.location
        guard !source.path.isEmpty else {
            throw HTTPError(403, code: "space_root", message: "A space's root cannot be \(move ? "moved" : "copied"); work with what is inside it.")
        }
        let destination = try DAVLocation(destination: call.request.headers["Destination"], host: call.request.headers["Host"])
        try requireSameSpace(destination, as: call, space: space)
        guard !destination.path.isEmpty else {
            throw HTTPError(403, code: "space_root", message: "A space's root cannot be replaced.")
        }
        guard let found = try resource(at: source, userID: space.userID) else {
            throw HTTPError.notFound("Nothing is at \(source.path).")
        }
        let resource = found
        guard destination.path != source.path else {
            throw HTTPError(403, code: "same_place", message: "The source and the destination are the same.")
        }
        if resource.isFolder && source.contains(destination) {
            throw HTTPError(403, code: "into_itself", message: "A folder cannot be \(move ? "moved" : "copied") into itself.")
        }
        let depth = call.request.headers["Depth"]?.lowercased() ?? "infinity"
        guard depth == "infinity" || (depth == "0" && !move) else {
            throw HTTPError.badRequest("\(move ? "MOVE takes Depth: infinity" : "COPY takes Depth: 0 or infinity").", code: "invalid_depth")
        }
        let overwrite = call.request.headers["Overwrite"]?.uppercased() != "F"
        let occupant = try self.resource(at: destination, userID: space.userID)
        if occupant != nil && !overwrite {
            throw DAVConditions.failed("Something is at \(destination.path) and Overwrite is F.")
        }
        try requireParentFolder(destination, userID: space.userID)
        try checkConditions(call, location: source, resource: resource, deep: true, checkLocks: move)
        try DAVConditions(call.request).checkLocks(locks, userID: space.userID, location: destination, deep: true)
        try writeEntries(call) { db in
            if let occupant { try removeResource(db, call: call, at: destination, resource: occupant) }
            try transfer(db, call: call, from: source, to: destination, resource: resource, move: move, deep: depth == "infinity")
        }
        if move { locks.releaseAll(userID: space.userID, space: DAVSpace.storedKey, under: source.path) }
        if occupant != nil { locks.releaseAll(userID: space.userID, space: DAVSpace.storedKey, under: destination.path) }
        return DAVResponse.empty(occupant == nil ? 201 : 204)
    }

    /// Refuses a destination in another space than `space`, the source's. Another name for the
    /// same space (`OWNER~NAME`) is the same space.
    /// - Throws: 403 when the destination is a space the caller may only read, 502 for any other
    ///   space, one the caller cannot read included.
    private func requireSameSpace(_ destination: DAVLocation, as call: Call, space: DAVSpace) throws {
        guard destination.space != call.location.space else { return }
        let other = try destination.space.flatMap { try spaces.named($0, for: call.principal) }
        if other?.userID == space.userID { return }
        if let other, !other.writable { throw HTTPError(403, code: "read_only_space", message: "You may read \(other.name) but not change it.") }
        throw HTTPError(502, code: "other_space", message: "Copy and move stay within one space.")
    }

    /// Copies or moves the entries, folder rows and dead properties at `source` to `destination`.
    private func transfer(_ db: any SQLConnection, call: Call, from source: DAVLocation, to destination: DAVLocation,
                          resource: DAVResource, move: Bool, deep: Bool) throws {
        let user = call.userID
        let entries: [NoteRecord]
        if let entry = resource.entry {
            entries = try NoteStore.load(db, userID: user, id: entry.id, withContent: true).map { [$0] } ?? []
        } else {
            entries = deep ? try NoteStore.entries(db, userID: user, inside: source.path, withContent: true) : []
        }
        for entry in entries {
            let path = try Self.entryPath(source.rebase(entry.path, onto: destination), isNew: true)
            guard EntryKind(path: path.value) == entry.kind else {
                throw HTTPError(409, code: "kind_change", message: """
                    \(entry.path) is \(entry.kind == .note ? "a note" : "a file"); at \(path.value) it would be \
                    \(entry.kind == .note ? "a file" : "a note"). Keep a note's .md or .markdown extension (and a file's other one).
                    """)
            }
            let id = move ? entry.id : NoteID()
            let precondition: WritePrecondition = move ? .revision(entry.rev) : .absent
            if entry.kind == .note {
                _ = try notes.put(db, userID: user, id: id, path: path, content: entry.content ?? "", precondition: precondition,
                                  device: call.principal.device)
            } else {
                _ = try notes.putAttachment(db, userID: user, id: id, path: path, hash: entry.hash, precondition: precondition,
                                            device: call.principal.device)
            }
        }
        guard resource.isFolder else {
            try DAVPropertyStore.copy(db, userID: user, space: DAVSpace.storedKey, from: source, to: destination)
            if move { try DAVPropertyStore.removeAll(db, userID: user, space: DAVSpace.storedKey, under: source.path) }
            return
        }
        let made = try DAVFolderStore.createdAt(db, userID: user, space: DAVSpace.storedKey, path: source.path) != nil
        let now = notes.clock.now()
        if made || entries.isEmpty { try DAVFolderStore.make(db, userID: user, space: DAVSpace.storedKey, path: destination.path, now: now) }
        if deep {
            for folder in try DAVFolderStore.folders(db, userID: user, space: DAVSpace.storedKey, inside: source.path) {
                try DAVFolderStore.make(db, userID: user, space: DAVSpace.storedKey, path: source.rebase(folder, onto: destination), now: now)
            }
        }
        if deep || move {
            try DAVPropertyStore.copy(db, userID: user, space: DAVSpace.storedKey, from: source, to: destination)
        }
        if move {
            try DAVFolderStore.remove(db, userID: user, space: DAVSpace.storedKey, path: source.path)
            try DAVPropertyStore.removeAll(db, userID: user, space: DAVSpace.storedKey, under: source.path)
        }
    }
}
