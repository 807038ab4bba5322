import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The signed-in sessions on this machine: `$XDG_CONFIG_HOME/notes/credentials.json`
/// (default `~/.config/notes/`), directory 0700, file 0600, replaced atomically.
///
/// Readers read without the lock (they only ever see a whole file, thanks to rename); every
/// read-modify-write happens inside `update`, under an exclusive `flock` on `credentials.lock`,
/// and re-reads the file there so a change another process made meanwhile is never lost.
struct CredentialStore: Sendable {
    let directory: URL

    var fileURL: URL { directory.appendingPathComponent("credentials.json") }
    var lockPath: String { directory.appendingPathComponent("credentials.lock").path }

    /// The store named by the environment (`XDG_CONFIG_HOME`, else `HOME/.config`).
    /// - Throws: `CredentialsError.noLocation` when neither variable is set to an absolute path.
    init(environment: [String: String]) throws {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            directory = URL(fileURLWithPath: config).appendingPathComponent("notes")
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            directory = URL(fileURLWithPath: home).appendingPathComponent(".config/notes")
        } else {
            throw CredentialsError.noLocation
        }
    }

    init(directory: URL) {
        self.directory = directory
    }

    /// Everything stored now; an absent file is an empty store.
    /// - Throws: `CredentialsError` when the file exists but cannot be read or parsed.
    func load() throws -> CredentialsFile {
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return CredentialsFile()
        } catch {
            if !FileManager.default.fileExists(atPath: fileURL.path) { return CredentialsFile() }
            throw CredentialsError.unreadable(path: fileURL.path, cause: error)
        }
        struct Version: Decodable { var version: Int? }
        if let version = (try? WireJSON.decoder().decode(Version.self, from: data))?.version, version > CredentialsFile.currentVersion {
            throw CredentialsError.newerFormat(path: fileURL.path, version: version)
        }
        do {
            return try WireJSON.decoder().decode(CredentialsFile.self, from: data)
        } catch {
            throw CredentialsError.damaged(path: fileURL.path, cause: error)
        }
    }

    /// The default account's session on `server` (the last signed in, or the only one), if any.
    func session(for server: ServerURL) throws -> StoredSession? {
        try load().defaultSession(server: server.string)
    }

    /// The session of account `userId` on `server`, if it is signed in here.
    func session(for server: ServerURL, userId: Int64) throws -> StoredSession? {
        try load().session(server: server.string, userId: userId)
    }

    /// Locks the store, reads it, lets `body` change it, and writes it back atomically if it
    /// changed. `body` cannot suspend, so the lock is never held across a network round trip:
    /// one can take longer than another `notes` process waits for the lock (`FileLock`).
    func update<T: Sendable>(_ body: (inout CredentialsFile) throws -> T) async throws -> T {
        try ensureDirectory()
        let lock = try await FileLock.acquire(at: lockPath)
        var file = try load()
        let before = file
        let result: T
        do {
            result = try body(&file)
        } catch {
            // Whatever `body` decided before failing (say, forgetting a dead session) still counts.
            if file != before { try write(file) }
            _ = consume lock
            throw error
        }
        if file != before { try write(file) }
        _ = consume lock
        return result
    }

    /// Creates the directory 0700, and tightens it to 0700 if it exists with wider access.
    private func ensureDirectory() throws {
        let path = directory.path
        var info = stat()
        if stat(path, &info) != 0 {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw CredentialsError.directoryNotCreated(path: path, cause: error)
            }
        } else if info.st_mode & 0o077 != 0 {
            guard chmod(path, 0o700) == 0 else {
                throw CredentialsError.directoryNotPrivate(path: path, errno: errno)
            }
        }
    }

    /// Writes `file` to a fresh 0600 temp file beside the target, fsyncs it, renames it over the
    /// target and fsyncs the directory, so a crash leaves either the old or the new file, whole.
    private func write(_ file: CredentialsFile) throws {
        let encoder = WireJSON.encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        let data: Data
        do { data = try encoder.encode(file) } catch {
            throw CredentialsError.notEncoded(cause: error)
        }
        let tempPath = directory.appendingPathComponent(".credentials.\(UUID().uuidString).tmp").path
        let fd = open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CredentialsError.temporaryFileNotCreated(path: tempPath, errno: errno) }
        var ok = data.withUnsafeBytes { POSIXIO.writeAll(fd, $0) == 0 }
        ok = ok && fsync(fd) == 0
        let failure = errno
        close(fd)
        guard ok, rename(tempPath, fileURL.path) == 0 else {
            let error = ok ? errno : failure
            unlink(tempPath)
            throw CredentialsError.notWritten(path: fileURL.path, errno: error)
        }
        let dirfd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            // Makes the rename itself durable; failure here leaves a correct file, so not fatal.
            _ = fsync(dirfd)
            close(dirfd)
        }
    }
}
