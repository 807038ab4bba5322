import Foundation

/// What went wrong with a bound folder's own files (`.notes/`: its config, its index) or with a
/// name sync needed in it, keeping the cause. `CLI.outcome(of:)` turns it into exit 1 and its
/// description.
enum FolderError: Error, CustomStringConvertible {
    /// `.notes/` could not be made when binding the folder at `root`.
    case cannotCreateStateFolder(root: String, cause: any Error)
    /// The folder's config at `path` could not be read.
    case cannotReadConfig(path: String, cause: any Error)
    /// The folder's config at `path` could not be written.
    case cannotWriteConfig(path: String, cause: any Error)
    /// A file of the index being forgotten (a rebinding) could not be removed: `errno`.
    case cannotRemove(path: String, errno: Int32)
    /// The sync index at `path` could not be opened.
    case cannotOpenIndex(path: String, cause: any Error)
    /// The sync index at `path` could not be read at one moment (`notes status`).
    case cannotReadIndex(path: String, cause: any Error)
    /// Every conflict-copy name tried for `path` was taken.
    case noFreeConflictName(path: String)

    var description: String {
        switch self {
        case .cannotCreateStateFolder(let root, let cause):
            "cannot create \(root)/.notes: \(cause.localizedDescription)"
        case .cannotReadConfig(let path, let cause):
            "cannot read \(path): \(cause.localizedDescription)"
        case .cannotWriteConfig(let path, let cause):
            "cannot write \(path): \(cause.localizedDescription)"
        case .cannotRemove(let path, let errno):
            "cannot remove \(path): \(String(cString: strerror(errno)))"
        case .cannotOpenIndex(let path, let cause):
            "cannot open the sync index \(path): \(cause)"
        case .cannotReadIndex(let path, let cause):
            "cannot read the sync index \(path): \(cause)"
        case .noFreeConflictName(let path):
            "cannot find a free name for a conflict copy of \(path)"
        }
    }
}
