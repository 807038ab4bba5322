#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The check `serve` makes before opening a SQLite database: that the WAL index beside it
/// (`PATH-shm`) can be written.
///
/// SQLite maps that file into every process using the database, and writes it through the
/// mapping. One it can only open read-only leaves a server that starts but can write nothing,
/// and a mapping the kernel cannot back is answered with SIGBUS, which no SQLite error code
/// can report. So a server refuses to start on one, in a sentence naming the file. Nothing
/// changes for a writable index: admin commands and `backup` share it with a running server.
enum SharedIndexCheck {
    /// - Throws: `DatabaseOpenError` when `PATH-shm` exists and this process cannot open it
    ///   for writing.
    static func verify(databasePath path: String) throws(DatabaseOpenError) {
        let index = path + "-shm"
        let descriptor = open(index, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        let code = errno
        guard code != ENOENT else { return }  // SQLite creates it, writable, on first use.
        throw DatabaseOpenError("""
            cannot write \(index), the index SQLite shares between the programs using the database \
            (\(String(cString: strerror(code)))): make it writable by this user, or remove it while nothing has the database open
            """)
    }
}
