import NotesCore

/// What a WebDAV path names: the root listing the spaces, a folder (a space's root included),
/// or a file (an entry), as the stores hold it now.
enum DAVResource {
    case root
    /// A folder; `createdAt` when WebDAV made it (MKCOL), nil for one that exists by its entries.
    case folder(createdAt: Int64?)
    case file(NoteRecord)

    var isFolder: Bool {
        if case .file = self { return false }
        return true
    }

    var entry: NoteRecord? {
        if case .file(let entry) = self { return entry }
        return nil
    }
}

extension WebDAVResponder {
    /// The resource at `location` in `space` (nil space: the root), or nil when nothing is there.
    func resource(at location: DAVLocation, userID: Int64) throws -> DAVResource? {
        guard location.space != nil else { return .root }
        if location.path.isEmpty { return .folder(createdAt: nil) }
        return try notes.database.read { db in try Self.resource(db, space: DAVSpace.storedKey, path: location.path, userID: userID) }
    }

    static func resource(_ db: some SQLConnection, space: String, path: String, userID: Int64) throws -> DAVResource? {
        if path.isEmpty { return .folder(createdAt: nil) }
        if let entry = try NoteStore.liveEntry(db, userID: userID, path: path) { return .file(entry) }
        if let createdAt = try DAVFolderStore.createdAt(db, userID: userID, space: space, path: path) { return .folder(createdAt: createdAt) }
        return try NoteStore.holdsEntries(db, userID: userID, folder: path) ? .folder(createdAt: nil) : nil
    }

    /// The ETag of whatever is at `location` now, for an `If` header's tagged list.
    func etag(of location: DAVLocation, userID: Int64) -> String? {
        guard location.space != nil, let entry = try? notes.liveEntry(userID: userID, path: location.path) else { return nil }
        return DAVConditions.etag(entry)
    }

    /// Checks the request's conditions and locks against `location` before a change.
    /// - Throws: 412 when a condition fails, 423 when a lock's token is missing.
    func checkConditions(_ call: Call, location: DAVLocation, resource: DAVResource?, deep: Bool, checkLocks: Bool = true) throws {
        let conditions = try DAVConditions(call.request)
        try conditions.check(call.request, location: location, entry: resource?.entry, isFolder: resource?.isFolder ?? false,
                             locks: locks, userID: call.userID) { etag(of: $0, userID: call.userID) }
        if checkLocks { try conditions.checkLocks(locks, userID: call.userID, location: location, deep: deep) }
    }

    /// The parent of `location` must be a folder for anything to be made there.
    /// - Throws: 409.
    func requireParentFolder(_ location: DAVLocation, userID: Int64) throws {
        let parent = location.parent
        guard let found = try resource(at: parent, userID: userID), found.isFolder else {
            throw HTTPError(409, code: "no_parent_folder", message: "The folder \(parent.path) does not exist; make it first (MKCOL).")
        }
    }
}
