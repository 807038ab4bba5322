import Foundation

/// Why the folder's sync lock (`SyncLock`) could not be taken. `CLI.outcome(of:)` turns it into
/// exit 1 and its description.
enum LockError: Error, CustomStringConvertible {
    /// The lock file at `path` could not be opened: `errno`.
    case cannotOpen(path: String, errno: Int32)
    /// `flock` on `path` failed for another reason than a holder: `errno`.
    case cannotLock(path: String, errno: Int32)
    /// Another process holds the lock at `path`; who, when the lock file says (`SyncLock.Holder`).
    case taken(path: String, holder: (pid: Int32, kind: SyncLock.Holder)?)

    var description: String {
        switch self {
        case .cannotOpen(let path, let errno):
            return "cannot open the sync lock \(path): \(String(cString: strerror(errno)))"
        case .cannotLock(let path, let errno):
            return "cannot lock \(path): \(String(cString: strerror(errno)))"
        case .taken(let path, let holder):
            guard let holder else {
                return "another sync is running in this folder (it holds \(path)); try again when it is done"
            }
            if holder.kind == .watcher {
                return "a watcher (`notes sync --watch`, pid \(holder.pid)) is running in this folder and keeps it "
                    + "in sync already; stop it first to run another sync here (`notes status` works beside it)"
            }
            return "another sync is running in this folder (pid \(holder.pid), holding \(path)); try again when it is done"
        }
    }
}
