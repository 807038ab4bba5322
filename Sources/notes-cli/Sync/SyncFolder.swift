import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder bound to a server and an account: `ROOT/.notes/` holds its config, its index, its
/// lock and scratch space for atomic writes.
struct SyncFolder: Sendable {
    /// What `.notes/config.json` records about the binding.
    struct Config: Codable, Sendable, Equatable {
        /// The server URL the folder syncs with.
        var server: String
        /// The name that appears in conflict copies made here.
        var device: String
        /// Whether the filesystem folds case (`A.md` and `a.md` are one file), probed at binding.
        var caseInsensitive: Bool
        /// 1: bound before accounts were recorded (no `user_id`); 2: bound to an account.
        var version: Int = 1
        /// The server's id of the account the folder belongs to; nil in a version 1 binding.
        var userId: Int64?
        /// That account's user name, for messages.
        var username: String?
        /// The shared space the folder syncs (its id, which never changes); nil: the account's
        /// personal space.
        var spaceId: Int64?
        /// The space as `OWNER/NAME` when it was bound, for messages.
        var spaceName: String?

        /// The account the folder belongs to, or nil for a binding from before accounts.
        var account: AccountName? {
            guard let userId else { return nil }
            return AccountName(userId: userId, username: username ?? "user \(userId)")
        }

        /// Records `account` as the folder's.
        mutating func bind(to account: AccountName) {
            userId = account.userId
            username = account.username
            version = 2
        }
    }

    /// The absolute folder path.
    let root: String
    let config: Config

    var stateDirectory: String { root + "/" + NotePath.stateFolderName }
    var configPath: String { stateDirectory + "/config.json" }
    var indexPath: String { stateDirectory + "/index.sqlite" }
    var lockPath: String { stateDirectory + "/lock" }

    /// Opens the folder's sync index, saying which file when it cannot.
    /// - Throws: `FolderError.cannotOpenIndex`, with the cause.
    func openIndex() throws -> SyncIndex {
        do {
            return try SyncIndex(path: indexPath)
        } catch {
            throw FolderError.cannotOpenIndex(path: indexPath, cause: error)
        }
    }
    var scratchDirectory: String { stateDirectory + "/tmp" }
    var ignorePath: String { root + "/.notesignore" }

    /// Binds `root` (created if missing) to `server` and `account`.
    /// - Throws: `FolderLookupError` when the folder is already inside a bound one; `FolderError` when it
    ///   cannot be written.
    static func bind(root: String, server: String, account: AccountName, device: String, space: SpaceResource? = nil) throws -> SyncFolder {
        let manager = FileManager.default
        if let existing = try? find(from: root) {
            throw FolderLookupError.alreadyBound(root: root, existing: existing.root, server: existing.config.server)
        }
        do {
            try manager.createDirectory(atPath: root + "/" + NotePath.stateFolderName + "/tmp", withIntermediateDirectories: true)
        } catch {
            throw FolderError.cannotCreateStateFolder(root: root, cause: error)
        }
        let probe = caseProbe(stateDirectory: root + "/" + NotePath.stateFolderName)
        var config = Config(server: server, device: ConflictName.sanitized(device), caseInsensitive: probe)
        config.bind(to: account)
        if let space, !space.personal {
            config.spaceId = space.id
            config.spaceName = space.qualifiedName
        }
        let folder = SyncFolder(root: root, config: config)
        try folder.writeConfig()
        return folder
    }

    /// This folder with `account` recorded in its config (adopting a version 1 binding).
    func recordingAccount(_ account: AccountName) throws -> SyncFolder {
        var config = config
        config.bind(to: account)
        let folder = SyncFolder(root: root, config: config)
        try folder.writeConfig()
        return folder
    }

    /// Binds this folder to another account (and maybe server), forgetting its index, so the
    /// next sync treats every file as new to that account: files are kept and uploaded, never
    /// deleted (docs/architecture.md, Sync invariants 12). The caller holds the folder's lock.
    func rebinding(server: String, account: AccountName) throws -> SyncFolder {
        for suffix in ["", "-wal", "-shm"] {
            let path = indexPath + suffix
            guard unlink(path) == 0 || errno == ENOENT else {
                throw FolderError.cannotRemove(path: path, errno: errno)
            }
        }
        var config = config
        config.server = server
        config.bind(to: account)
        let folder = SyncFolder(root: root, config: config)
        try folder.writeConfig()
        return folder
    }

    /// Writes `.notes/config.json` atomically (temp file, then rename).
    private func writeConfig() throws {
        do {
            let data = try WireJSON.encoder().encode(config)
            try data.write(to: URL(fileURLWithPath: configPath), options: .atomic)
        } catch {
            throw FolderError.cannotWriteConfig(path: configPath, cause: error)
        }
    }

    /// The bound folder at or above `directory`, a folder the user named (`notes sync DIR`):
    /// a misspelt name is an error rather than quietly the bound folder above it (which
    /// `find(from:)` would find, walking up from a path that is not there).
    /// - Throws: `FolderLookupError` when `directory` is not an existing folder, or is in no bound one.
    static func find(fromNamed directory: String) throws -> SyncFolder {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw FolderLookupError.noSuchFolder(directory)
        }
        guard isDirectory.boolValue else { throw FolderLookupError.notAFolder(directory) }
        return try find(from: directory)
    }

    /// The bound folder at or above `start`, as git finds its repository.
    /// - Throws: `FolderLookupError.notBound` when there is none; `FolderError` when a config is unreadable.
    static func find(from start: String) throws -> SyncFolder {
        var path = URL(fileURLWithPath: start).standardizedFileURL.path
        while true {
            let config = path == "/" ? "/.notes/config.json" : path + "/.notes/config.json"
            if FileManager.default.fileExists(atPath: config) {
                do {
                    let data = try Data(contentsOf: URL(fileURLWithPath: config))
                    return SyncFolder(root: path, config: try WireJSON.decoder().decode(Config.self, from: data))
                } catch {
                    throw FolderError.cannotReadConfig(path: config, cause: error)
                }
            }
            guard path != "/" else { break }
            path = (path as NSString).deletingLastPathComponent
            if path.isEmpty { path = "/" }
        }
        throw FolderLookupError.notBound(start: start)
    }

    /// Whether names differing only in case name one file here: creates a file and looks for it
    /// under another case.
    private static func caseProbe(stateDirectory: String) -> Bool {
        let lower = stateDirectory + "/case-probe", upper = stateDirectory + "/CASE-PROBE"
        let fd = open(lower, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        close(fd)
        defer { unlink(lower) }
        var info = stat()
        return lstat(upper, &info) == 0
    }

    /// The folder's ignore rules: editors' temporary files, then `.notesignore` when there is one.
    func ignoreRules() -> IgnoreRules {
        guard let data = FileManager.default.contents(atPath: ignorePath) else { return .editorTemporaryFiles }
        return .folder(parsing: String(decoding: data, as: UTF8.self))
    }
}
