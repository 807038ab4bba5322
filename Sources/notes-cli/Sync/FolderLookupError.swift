/// Why a command has no notes folder to work in: the folder named is not there, or is in no
/// bound folder, or binding one would nest it in another. Each is a command line that does not
/// fit what is on disk, so `CLI.outcome(of:)` makes it a usage error (exit 2).
enum FolderLookupError: Error, CustomStringConvertible {
    /// `root` is already inside the notes folder `existing`, bound to `server`.
    case alreadyBound(root: String, existing: String, server: String)
    /// Nothing is at the path the user named.
    case noSuchFolder(String)
    /// The path the user named is a file.
    case notAFolder(String)
    /// No folder at or above `start` is bound.
    case notBound(start: String)

    var description: String {
        switch self {
        case .alreadyBound(let root, let existing, let server):
            "\(root) is already inside the notes folder \(existing) (bound to \(server))"
        case .noSuchFolder(let path): "no such folder: \(path)"
        case .notAFolder(let path): "not a folder: \(path)"
        case .notBound(let start): "not a notes folder (or inside one): \(start); bind one with `notes init` or `notes clone`"
        }
    }
}
