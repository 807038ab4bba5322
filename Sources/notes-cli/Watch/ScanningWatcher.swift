import Foundation
import Synchronization

/// The folder watcher where inotify is not available: walks the folder every `interval` and
/// reports the files whose metadata changed since the walk before. Same interface, same
/// decisions downstream; only slower to notice and costlier on a large folder.
final class ScanningWatcher: FolderWatcher {
    private struct State {
        var known: [String: FileStat]?
        var pending = LocalEvents()
        var task: Task<Void, Never>?
    }

    private let root: String
    private let interval: Duration
    private let state = Mutex(State())

    init(root: String, interval: Duration) {
        self.root = root
        self.interval = interval
        state.withLock { $0.known = walk() }
    }

    func start(wake: @escaping @Sendable () -> Void) throws {
        let task = Task { [weak self, interval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval, clock: .continuous)
                guard let self, !Task.isCancelled else { return }
                if scan() { wake() }
            }
        }
        state.withLock { $0.task = task }
    }

    func take() -> LocalEvents {
        _ = scan()
        return state.withLock { state in
            defer { state.pending = LocalEvents() }
            return state.pending
        }
    }

    func rewatch() {
        state.withLock { $0.known = walk() }
    }

    func stop() {
        state.withLock { state in
            state.task?.cancel()
            state.task = nil
        }
    }

    /// Walks the folder and records what differs from the last walk; whether anything does.
    private func scan() -> Bool {
        guard let now = walk() else { return false }
        return state.withLock { state in
            let before = state.known ?? [:]
            state.known = now
            for (path, stat) in now where before[path] != stat { state.pending.files.insert(path) }
            for path in before.keys where now[path] == nil { state.pending.files.insert(path) }
            return !state.pending.isEmpty
        }
    }

    /// Every file with its metadata (notes of every extension and attachments: sync carries
    /// them all), or nil when the folder cannot be walked right now.
    private func walk() -> [String: FileStat]? {
        guard let listing = try? FolderWalker(root: root, fileSuffix: "").walk() else { return nil }
        var files: [String: FileStat] = [:]
        for entry in listing.entries {
            files[entry.path] = FileStat(size: entry.size, mtimeNanoseconds: entry.modifiedSeconds * 1_000_000_000 + entry.modifiedNanoseconds,
                                         inode: entry.inode)
        }
        return files
    }
}
