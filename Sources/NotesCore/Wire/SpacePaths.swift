/// Where a space's notes are in the API: the routes of `/v1/notes…` and their siblings again
/// under `/v1/spaces/{space}/…`. The server registers its routes by it and a client bound to a
/// space addresses its requests by it, so both agree on one list.
public enum SpacePaths {
    /// The first path segments after `/v1` whose routes work on one space's notes.
    public static let scopedSegments: Set<String> = [
        "notes", "changes", "batch", "search", "trash", "publications", "content", "attachments", "uploads",
    ]

    /// Whether `path` (such as `/v1/notes/{id}`) is the path of one space's notes.
    public static func isScoped(_ path: some StringProtocol) -> Bool {
        let segments = path.split(separator: "/", maxSplits: 2)
        return segments.count >= 2 && segments[0] == "v1" && scopedSegments.contains(String(segments[1]))
    }

    /// `path` in the space `space`: `/v1/notes/x` becomes `/v1/spaces/7/notes/x`. A path that
    /// is not of a space's notes, or no space (the personal space), leaves it as it is.
    public static func path(_ path: String, inSpace space: Int64?) -> String {
        guard let space, isScoped(path) else { return path }
        return "/v1/spaces/\(space)" + path.dropFirst(3)
    }

    /// The same for a route pattern, with its `:space` parameter: `/v1/spaces/:space/notes/:id`.
    public static func pattern(_ pattern: String) -> String {
        "/v1/spaces/:space" + pattern.dropFirst(3)
    }
}
