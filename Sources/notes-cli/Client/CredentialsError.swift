/// What went wrong with the credentials on this machine: the file, its folder or its lock
/// (`CredentialStore`, `FileLock`), with the path and the cause underneath.
enum CredentialsError: Error, Sendable, CustomStringConvertible {
    /// Neither `XDG_CONFIG_HOME` nor `HOME` is an absolute path.
    case noLocation
    case unreadable(path: String, cause: any Error)
    /// Written by a later version of `notes`, in a format this one does not know.
    case newerFormat(path: String, version: Int)
    case damaged(path: String, cause: any Error)
    case directoryNotCreated(path: String, cause: any Error)
    /// The folder is open to others and `chmod` failed (`errno`).
    case directoryNotPrivate(path: String, errno: Int32)
    case notEncoded(cause: any Error)
    /// The temporary file the new credentials go to first could not be created.
    case temporaryFileNotCreated(path: String, errno: Int32)
    /// Writing, flushing or renaming the new file into place failed.
    case notWritten(path: String, errno: Int32)
    case lockNotOpened(path: String, errno: Int32)
    case lockFailed(path: String, errno: Int32)
    /// Another process held the lock for all of `seconds`.
    case lockTimedOut(path: String, seconds: Int)

    /// The user's sentence, as `CLI.outcome(of:)` words it (so an error interpolated into a
    /// message reads the same as one reported at exit).
    var description: String { CLI.sentence(of: self) }
}
