import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Absolute, symlink-free paths, so that two spellings of one folder (`.`, `./x/..`, a link to
/// it) compare equal when a command must tell whether one folder is inside another.
enum FolderPaths {
    /// The real path of `path`, which need not exist: its longest existing ancestor is resolved
    /// with `realpath`, and the rest appended.
    static func resolved(_ path: String) -> String {
        var url = URL(fileURLWithPath: path).standardizedFileURL
        var missing: [String] = []
        while url.path != "/" {
            if let real = realpath(url.path, nil) {
                defer { free(real) }
                var result = URL(fileURLWithPath: String(cString: real))
                for component in missing.reversed() { result.appendPathComponent(component) }
                return result.path
            }
            missing.append(url.lastPathComponent)
            url.deleteLastPathComponent()
        }
        return "/" + missing.reversed().joined(separator: "/")
    }

    /// The real path of the folder `path`.
    /// - Throws: a usage error naming `path` when it does not exist or is not a folder, as
    ///   `notes sync` says of a misspelt folder (exit 2).
    static func existingFolder(_ path: String) throws(FolderLookupError) -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw .noSuchFolder(path)
        }
        guard isFolder.boolValue else { throw .notAFolder(path) }
        return resolved(path)
    }
}

/// A file-system error as the one short reason a user can act on ("Permission denied", "Is a
/// directory"), instead of Foundation's `NSCocoaErrorDomain` dump.
func fileSystemReason(_ error: any Error) -> String {
    let error = error as NSError
    for candidate in [error, error.userInfo[NSUnderlyingErrorKey] as? NSError].compactMap({ $0 })
    where candidate.domain == NSPOSIXErrorDomain {
        return String(cString: strerror(Int32(candidate.code)))
    }
    return error.localizedFailureReason ?? error.localizedDescription
}
