extension SchemaVersion {
    /// Version 22: what WebDAV keeps beside the entries: folders made empty by MKCOL, and the
    /// dead properties clients set with PROPPATCH.
    static let v22 = SchemaVersion(version: 22, name: "WebDAV folders and dead properties", statements: webDAV)

    /// `dav_folders`: a folder a WebDAV client made (MKCOL), kept so it can be listed while it
    /// holds nothing. A folder that holds an entry exists by that entry's path alone; sync knows
    /// only entries, so an empty folder is WebDAV's own (docs/architecture.md §3.7).
    /// `space` names the space (`personal`), `user_id` whose space it is.
    ///
    /// `dav_properties`: a dead property (RFC 4918 §4.2) of the resource at `path`, its value the
    /// XML the client sent, kept as text. Both follow their resource through MOVE and go with
    /// its DELETE.
    private static func webDAV(_ sql: SQLDialect) -> String {
        """
        CREATE TABLE dav_folders (
            user_id \(sql.int64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            space TEXT NOT NULL,
            path TEXT NOT NULL,
            created_at \(sql.int64) NOT NULL,
            PRIMARY KEY (user_id, space, path)
        )\(sql.withoutRowID);
        CREATE TABLE dav_properties (
            user_id \(sql.int64) NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            space TEXT NOT NULL,
            path TEXT NOT NULL,
            namespace TEXT NOT NULL,
            name TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (user_id, space, path, namespace, name)
        )\(sql.withoutRowID);

        """
    }
}
