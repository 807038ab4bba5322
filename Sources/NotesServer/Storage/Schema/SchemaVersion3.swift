extension SchemaVersion {
    /// Version 3: the device that made each revision (the same statement on both backends).
    static let v3 = SchemaVersion(version: 3, name: "the device that made each revision", sql: revisionsDevice)

    /// The device (the session's name, or `token:NAME` for a personal token) that made each
    /// revision, for `notes log`. Null for revisions made before this version: nobody knows.
    private static let revisionsDevice = """
        ALTER TABLE revisions ADD COLUMN device TEXT;

        """
}
