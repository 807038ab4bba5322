extension SchemaVersion {
    /// Version 7: kept renderings carry the renderer's version (the same statement on both backends).
    static let v7 = SchemaVersion(version: 7, name: "kept renderings carry the renderer's version", sql: renderingVersion)

    /// Each kept rendering records the renderer version that made it (`NoteRendering.keptVersion`);
    /// one made by an older renderer is made again at its next read, so a change of the
    /// renderer's output (refused links became their text) reaches every note, not only the
    /// ones edited since. Renderings kept before this version count as version 0.
    private static let renderingVersion = """
        ALTER TABLE rendered_html ADD COLUMN renderer INTEGER NOT NULL DEFAULT 0;

        """
}
