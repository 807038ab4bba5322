import Foundation

/// What a folder watcher saw since it was last asked. Paths are relative to the folder and
/// spelled as on disk; whether they matter is for `SyncedFiles` to say.
struct LocalEvents: Sendable, Equatable {
    /// Files created, written, moved or deleted (and the files found in a folder that appeared).
    var files: Set<String> = []
    /// Folders deleted or moved away: the notes that were in them moved or went too.
    var vanishedFolders: Set<String> = []
    /// Events were lost (the kernel's queue overflowed): only a full rescan can tell what changed.
    var overflowed = false
    /// Things the user should hear once, such as the system's watch limit being reached.
    var warnings: [String] = []

    var isEmpty: Bool { files.isEmpty && vanishedFolders.isEmpty && !overflowed && warnings.isEmpty }
}

/// Tells the watching sync when files in the folder change, without saying who changed them.
///
/// Linux uses inotify (`InotifyWatcher`); elsewhere `ScanningWatcher` compares periodic walks,
/// behind the same interface (macOS FSEvents can come later).
protocol FolderWatcher: AnyObject, Sendable {
    /// Starts watching; `wake` is called, from any thread, whenever new events are waiting.
    func start(wake: @escaping @Sendable () -> Void) throws
    /// Everything seen since the last call, without blocking. With inotify every write already
    /// made is in it: the kernel queues an event within the system call that caused it.
    func take() -> LocalEvents
    /// Watches the whole folder again from scratch: after an overflow, and hourly.
    func rewatch()
    /// Stops watching; no `wake` comes after it returns.
    func stop()
}

/// The watcher for this platform.
func makeFolderWatcher(root: String, settings: WatchSettings) throws -> any FolderWatcher {
    #if os(Linux)
    return try InotifyWatcher(root: root, injectOverflow: settings.injectOverflow)
    #else
    return ScanningWatcher(root: root, interval: .seconds(2))
    #endif
}
