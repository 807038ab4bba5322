import NotesCore

/// Why the SQLite database at `--db` could not be opened, as one sentence naming the file and
/// the likely cause rather than in SQLite's words (`SQLite error 26: file is not a database`).
struct DatabaseOpenError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }

    /// The sentence for `error`, met while opening (and migrating) the database at `path`.
    init(_ error: DatabaseError, path: String) {
        switch error.code & 0xFF {
        case 26:  // SQLITE_NOTADB
            description = "\(path) is not a SQLite database (is --db the right file?)"
        case 14:  // SQLITE_CANTOPEN
            description = "cannot open the database \(path): it is a folder, or it or its folder cannot be written"
        case 8:  // SQLITE_READONLY
            description = "cannot write the database \(path): it, its folder or its -wal or -shm file is read-only"
        case 13:  // SQLITE_FULL
            description = "cannot open the database \(path): the disk is full"
        case 10:  // SQLITE_IOERR, among them a -shm file that cannot grow
            description = "cannot open the database \(path): the disk refused a read or write (is it full, or is the -shm file beside it unwritable?)"
        case 5, 6:  // SQLITE_BUSY, SQLITE_LOCKED
            description = "the database \(path) is locked by another program; try again when it is done"
        default:
            description = "cannot open the database \(path): \(error.message)"
        }
    }

    /// The refusal for a database whose folder does not exist (a mistyped `--db` would
    /// otherwise create a tree of folders and an empty database nobody meant).
    static func missingFolder(_ folder: String, of path: String) -> DatabaseOpenError {
        DatabaseOpenError("the folder \(folder) for the database \(path) does not exist (create it, or pass --create-dirs)")
    }
}
