import Foundation

/// Why `notes sync --watch` stopped, keeping the cause. `CLI.outcome(of:)` turns it into the
/// cause's exit code (4 for a session that is over, 1 for the mass-delete guard) and a sentence
/// naming the folder.
enum WatchError: Error, CustomStringConvertible {
    /// The watcher of `root` stopped because of `cause`, which no later cycle can get over.
    case stopped(root: String, cause: any Error)
    /// The system gave no inotify instance for `root` (its per-user limit): `errno`.
    case cannotWatch(root: String, errno: Int32)

    var description: String {
        switch self {
        case .stopped(let root, let cause):
            "stopped watching \(root): \(cause)"
        case .cannotWatch(let root, let errno):
            "cannot watch \(root) for changes: inotify_init1: \(String(cString: strerror(errno)))"
        }
    }
}
