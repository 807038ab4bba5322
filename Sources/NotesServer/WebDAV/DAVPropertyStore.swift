import NotesCore

/// Dead properties (RFC 4918 §4.2): whatever a client sets with PROPPATCH on a file or folder,
/// kept as the XML it sent, per resource. The one owner of the table `dav_properties`
/// (schema version 22). A property follows its resource through MOVE, is copied by COPY, and
/// goes with DELETE.
enum DAVPropertyStore {
    /// A property's name: its namespace and local name.
    struct Name: Hashable, Sendable {
        let namespace: String
        let name: String
    }

    /// Every dead property of `path`, in a stable order: name and the stored XML element.
    static func properties(_ db: some SQLConnection, userID: Int64, space: String, path: String) throws -> [(name: Name, xml: String)] {
        try db.query("""
            SELECT namespace, name, value FROM dav_properties WHERE user_id = ? AND space = ? AND path = ? ORDER BY namespace, name
            """, [userID, space, path]) { (Name(namespace: $0.string(0), name: $0.string(1)), $0.string(2)) }
    }

    /// Sets `name` of `path` to `xml` (the whole property element).
    static func set(_ db: some SQLConnection, userID: Int64, space: String, path: String, name: Name, xml: String) throws {
        _ = try db.run("""
            INSERT INTO dav_properties (user_id, space, path, namespace, name, value) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (user_id, space, path, namespace, name) DO UPDATE SET value = excluded.value
            """, userID, space, path, name.namespace, name.name, xml)
    }

    /// Removes `name` of `path` (nothing when it is not set).
    static func remove(_ db: some SQLConnection, userID: Int64, space: String, path: String, name: Name) throws {
        _ = try db.run("DELETE FROM dav_properties WHERE user_id = ? AND space = ? AND path = ? AND namespace = ? AND name = ?",
                       userID, space, path, name.namespace, name.name)
    }

    /// Removes the properties of `path` and of everything inside it.
    static func removeAll(_ db: some SQLConnection, userID: Int64, space: String, under path: String) throws {
        let column = NoteStore.pathColumn(db)
        _ = try db.run("""
            DELETE FROM dav_properties WHERE user_id = ? AND space = ? AND (path = ? OR (\(column) > ? AND \(column) < ?))
            """, userID, space, path, path + "/", path + "0")
    }

    /// Copies the properties of `source` to `destination` (each path inside `source` to the
    /// same place inside `destination`); the destination's own are replaced.
    static func copy(_ db: some SQLConnection, userID: Int64, space: String, from source: DAVLocation, to destination: DAVLocation) throws {
        try removeAll(db, userID: userID, space: space, under: destination.path)
        let column = NoteStore.pathColumn(db)
        let rows = try db.query("""
            SELECT path, namespace, name, value FROM dav_properties WHERE user_id = ? AND space = ? AND (path = ? OR (\(column) > ? AND \(column) < ?))
            """, [userID, space, source.path, source.path + "/", source.path + "0"]) { ($0.string(0), Name(namespace: $0.string(1), name: $0.string(2)), $0.string(3)) }
        for (path, name, xml) in rows {
            try set(db, userID: userID, space: space, path: source.rebase(path, onto: destination), name: name, xml: xml)
        }
    }
}

extension DAVPropertyStore {
    /// The dead properties of every resource directly inside the folder `folder`, by path.
    static func childProperties(_ db: some SQLConnection, userID: Int64, space: String,
                                folder: String) throws -> [String: [(name: Name, xml: String)]] {
        let column = NoteStore.pathColumn(db)
        let rows: [(String, Name, String)]
        if folder.isEmpty {
            rows = try db.query("SELECT path, namespace, name, value FROM dav_properties WHERE user_id = ? AND space = ? ORDER BY namespace, name",
                                [userID, space]) { ($0.string(0), Name(namespace: $0.string(1), name: $0.string(2)), $0.string(3)) }
        } else {
            rows = try db.query("""
                SELECT path, namespace, name, value FROM dav_properties
                WHERE user_id = ? AND space = ? AND \(column) > ? AND \(column) < ? ORDER BY namespace, name
                """, [userID, space, folder + "/", folder + "0"]) { ($0.string(0), Name(namespace: $0.string(1), name: $0.string(2)), $0.string(3)) }
        }
        let prefixLength = folder.isEmpty ? 0 : folder.count + 1
        var found: [String: [(name: Name, xml: String)]] = [:]
        for (path, name, xml) in rows where !path.isEmpty && !path.dropFirst(prefixLength).contains("/") {
            found[path, default: []].append((name, xml))
        }
        return found
    }
}
