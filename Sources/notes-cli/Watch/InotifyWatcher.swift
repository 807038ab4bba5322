#if os(Linux)
import Dispatch
import Glibc
import Synchronization

/// The folder watcher on Linux: one inotify watch per folder (inotify is not recursive).
///
/// A folder that appears (created, or moved in) is watched first and listed second, and every
/// file the listing finds is reported: files made in it before its watch existed have no event
/// of their own (C-LIBRARIES.md). A folder that goes away takes its watches, and those of every
/// folder below it, along. Names starting with a dot are never watched or reported (`.notes/`,
/// editors' swap files), except the folder's own `.notesignore`.
///
/// The descriptor is non-blocking and read under the state's lock, both by the dispatch source
/// (as events arrive) and by `take()` (right after a sync, to collect the events of its writes).
final class InotifyWatcher: FolderWatcher {
    private struct State {
        /// Watch descriptor → folder relative to the root ("" for the root).
        var folders: [Int32: String] = [:]
        var pending = LocalEvents()
        /// Test hook: events are being lost, from the first batch until the next `rewatch()`.
        var injectedOverflow: InjectedOverflow
        var warnedLimit = false
        var source: DispatchSourceBox<any DispatchSourceRead>?
    }

    /// The test hook's course: armed, then losing every event until the rescan, then done.
    enum InjectedOverflow {
        case off, armed, losing
    }

    private static let mask = UInt32(IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO)
        | UInt32(IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

    private let root: String
    private let descriptor: Int32
    private let state: Mutex<State>

    /// Opens an inotify instance and watches every folder under `root`.
    /// - Parameter injectOverflow: test hook: the first batch of events is taken for a lost
    ///   queue, and every event after it is lost too until the rescan that must follow.
    /// - Throws: `WatchError.cannotWatch` when the system gives no inotify instance (its per-user limit).
    init(root: String, injectOverflow: Bool) throws {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            throw WatchError.cannotWatch(root: root, errno: errno)
        }
        self.root = root
        self.descriptor = descriptor
        state = Mutex(State(injectedOverflow: injectOverflow ? .armed : .off))
        state.withLock { state in _ = watchTree("", reporting: false, into: &state) }
    }

    deinit {
        close(descriptor)
    }

    func start(wake: @escaping @Sendable () -> Void) throws {
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: DispatchQueue(label: "notes.watch.inotify"))
        source.setEventHandler { [weak self] in
            guard let self else { return }
            let waiting = state.withLock { state in
                drain(into: &state)
                return !state.pending.isEmpty
            }
            if waiting { wake() }
        }
        let box = DispatchSourceBox(source: source)
        state.withLock { $0.source = box }
        source.activate()
    }

    func take() -> LocalEvents {
        state.withLock { state in
            drain(into: &state)
            defer { state.pending = LocalEvents() }
            return state.pending
        }
    }

    func rewatch() {
        state.withLock { state in
            if state.injectedOverflow == .losing { state.injectedOverflow = .off }
            _ = watchTree("", reporting: false, into: &state)
        }
    }

    func stop() {
        let source = state.withLock { state in
            defer { state.source = nil }
            return state.source
        }
        // A handler already running may still wake the loop once, which finds nothing; the
        // descriptor stays open until deinit, so no read can hit a reused one.
        source?.source.cancel()
    }

    /// Reads every queued event, without blocking.
    private func drain(into state: inout State) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var batch = LocalEvents()
        var sawEvents = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }  // EAGAIN: the queue is empty
            sawEvents = true
            buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset + 16 <= count {
                    let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let name = String(decoding: raw[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }, as: UTF8.self)
                    handle(wd: wd, mask: mask, name: name, into: &state, batch: &batch)
                    offset += 16 + length
                }
            }
        }
        guard sawEvents else { return }
        if state.injectedOverflow != .off {
            // As in a real overflow, nothing is known of what happened until the rescan.
            batch = LocalEvents(overflowed: state.injectedOverflow == .armed)
            state.injectedOverflow = .losing
        }
        state.pending.files.formUnion(batch.files)
        state.pending.vanishedFolders.formUnion(batch.vanishedFolders)
        state.pending.overflowed = state.pending.overflowed || batch.overflowed
        state.pending.warnings += batch.warnings
    }

    private func handle(wd: Int32, mask: UInt32, name: String, into state: inout State, batch: inout LocalEvents) {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            batch.overflowed = true
            return
        }
        if mask & UInt32(IN_IGNORED) != 0 {
            state.folders[wd] = nil
            return
        }
        guard let folder = state.folders[wd], !name.isEmpty else { return }
        let path = folder.isEmpty ? name : folder + "/" + name
        guard !name.hasPrefix(".") else {
            if path == ".notesignore" { batch.files.insert(path) }
            return
        }
        guard mask & UInt32(IN_ISDIR) != 0 else {
            batch.files.insert(path)
            return
        }
        if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
            forget(path, into: &state)
            batch.vanishedFolders.insert(path)
        }
        if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
            batch.files.formUnion(watchTree(path, reporting: true, into: &state))
        }
    }

    /// Watches `relative` and every folder below it (watch first, then list, so nothing made
    /// in between is missed), and returns the files found when `reporting`.
    @discardableResult
    private func watchTree(_ relative: String, reporting: Bool, into state: inout State) -> [String] {
        var found: [String] = []
        var stack = [relative]
        while let folder = stack.popLast() {
            let absolute = folder.isEmpty ? root : root + "/" + folder
            let wd = inotify_add_watch(descriptor, absolute, Self.mask)
            guard wd >= 0 else {
                if errno == ENOSPC && !state.warnedLimit {
                    state.warnedLimit = true
                    state.pending.warnings.append("the system's limit of inotify watches is reached (fs.inotify.max_user_watches): "
                                                  + "changes in some folders are only seen by the hourly rescan")
                }
                continue  // gone meanwhile, or no longer a folder: its parent's events say so
            }
            state.folders[wd] = folder
            guard let directory = opendir(absolute) else { continue }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard !name.hasPrefix(".") else { continue }  // ".", "..", dot-files, .notes/
                let child = folder.isEmpty ? name : folder + "/" + name
                var kind = entry.pointee.d_type
                if kind == UInt8(DT_UNKNOWN) {
                    var info = stat()
                    guard lstat(root + "/" + child, &info) == 0 else { continue }
                    kind = info.st_mode & S_IFMT == S_IFDIR ? UInt8(DT_DIR) : info.st_mode & S_IFMT == S_IFREG ? UInt8(DT_REG) : 0
                }
                if kind == UInt8(DT_DIR) {
                    stack.append(child)
                } else if kind == UInt8(DT_REG) && reporting {
                    found.append(child)
                }
            }
        }
        return found
    }

    /// Drops the watches of `relative` and of every folder below it (moved away or deleted).
    private func forget(_ relative: String, into state: inout State) {
        let prefix = relative + "/"
        for (wd, folder) in state.folders where folder == relative || folder.hasPrefix(prefix) {
            inotify_rm_watch(descriptor, wd)
            state.folders[wd] = nil
        }
    }
}
#endif
