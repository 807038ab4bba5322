/// The version shared by `notes` and `notes-server`, shown by `--version` and `/healthz`.
public enum NotesVersion {
    public static let current = "0.1.0"
    /// The API generation both sides speak; the URL prefix is `/v\(api)`.
    public static let api = 1
}
