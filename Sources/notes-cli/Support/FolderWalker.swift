import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fast, never-following walk of a notes folder: every note file with its size, modification
/// time and inode, in a stable order.
///
/// Export reads the notes it lists; sync compares the metadata with its index to find changed
/// files without reading them (docs/architecture.md, Sync invariants 11). It uses `openat`/`readdir`/`fstatat` because
/// Foundation's enumerators are 2 to 18 times slower on the 10,000-note corpus (C-LIBRARIES.md).
///
/// What it leaves out, by design (docs/architecture.md, Sync invariants 9): names starting with a dot (so `.notes/`, editor
/// swap files and `.git/`), symbolic links (never followed, neither to files nor to folders, and
/// each directory is opened with `O_NOFOLLOW` relative to its parent, so swapping one for a link
/// mid-walk cannot lead it outside), anything that is not a regular file or a directory, and
/// files whose name does not end in `fileSuffix`. Names that are not valid UTF-8 cannot be notes
/// (paths are UTF-8 on the wire); they are reported in `Listing.skipped` rather than dropped
/// silently.
struct FolderWalker: Sendable {
    #if canImport(Darwin)
    private typealias DirectoryStream = UnsafeMutablePointer<DIR>
    #else
    private typealias DirectoryStream = OpaquePointer
    #endif

    /// One file found by the walk.
    struct Entry: Sendable, Hashable {
        /// The path relative to the root, `/`-separated, with the bytes of the names on disk
        /// (not NFC-normalised: use it to open the file; normalise with `NotePath`).
        var path: String
        var size: Int64
        /// Modification time: seconds and nanoseconds since 1970 (both, so an edit within the
        /// same second still shows).
        var modifiedSeconds: Int64
        var modifiedNanoseconds: Int64
        var inode: UInt64
    }

    /// Something the walk found but could not list.
    struct Skipped: Sendable, Hashable {
        /// The relative path, with invalid UTF-8 shown as U+FFFD.
        var path: String
        var reason: String
    }

    /// The outcome of a walk: entries sorted by `path`, and what was left out for a reason a user
    /// may want to hear about.
    struct Listing: Sendable {
        var entries: [Entry]
        var skipped: [Skipped]
    }

    /// The folder to walk.
    var root: String
    /// The ending a file's name needs to be listed.
    var fileSuffix: String = ".md"

    /// Walks `root`.
    /// - Parameter inTwo: walk half of the top-level folders on a second thread. On 10,000
    ///   notes in 50 folders the walk is one `fstatat` a file, system time spent one call after
    ///   another: two threads on two cores halve it (a no-op sync waits for nothing else).
    /// - Throws: `FolderWalkError` when the root or a folder inside cannot be read. A folder
    ///   that cannot be read is an error rather than an empty folder, so that sync never takes
    ///   notes it cannot see for deleted ones. Entries that vanish during the walk are left out.
    func walk(inTwo: Bool = false) throws(FolderWalkError) -> Listing {
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FolderWalkError(path: root, operation: "open", code: errno) }
        var gathered = Gathered()
        guard inTwo else {
            try walkDirectory(fd: fd, prefix: "", into: &gathered)
            gathered.sortByBytes()
            return Gathered.listing(of: gathered)
        }
        let directory = try openDirectory(fd: fd, prefix: "")
        defer { closedir(directory) }  // after the second thread is done with it
        let dirFD = dirfd(directory)
        let subfolders = try list(directory, prefix: "", into: &gathered)
        // Every other folder (sorted), so neither half gets all the large ones by name.
        let theirs = stride(from: 1, to: subfolders.count, by: 2).map { subfolders[$0] }
        let mine = stride(from: 0, to: subfolders.count, by: 2).map { subfolders[$0] }
        let walker = self
        let other = ThreadWork<Gathered> {
            var part = Gathered()
            try walker.walkSubfolders(theirs, of: dirFD, prefix: "", into: &part)
            part.sortByBytes()
            return part
        }
        var failure: FolderWalkError?
        do {
            try walkSubfolders(mine, of: dirFD, prefix: "", into: &gathered)
            gathered.sortByBytes()
        } catch {
            failure = error
        }
        // Waited for even after a failure: its thread reads the root's descriptor.
        let part: Gathered
        switch other.wait() {
        case .success(let value): part = value
        case .failure(let error as FolderWalkError): throw failure ?? error
        case .failure(let error): throw failure ?? FolderWalkError(path: root, operation: "walk \(error)", code: 0)
        }
        if let failure { throw failure }
        return Gathered.listing(of: gathered, part)
    }

    /// What a walk gathers before it makes its strings: each file's path as bytes in one
    /// buffer. The client runs with one malloc arena (see main.swift), so two threads each
    /// making a string a file took turns at its lock every few microseconds; this way a walking
    /// thread allocates only as its buffers grow, and the strings are made once both are done.
    private struct Gathered: Sendable {
        struct File: Sendable {
            var start: Int
            var count: Int
            var size: Int64
            var seconds: Int64
            var nanoseconds: Int64
            var inode: UInt64
        }

        var bytes: [UInt8] = []
        var files: [File] = []
        var skipped: [Skipped] = []

        mutating func add(prefix: String, name: String, _ info: stat) {
            #if canImport(Darwin)
            let time = info.st_mtimespec
            #else
            let time = info.st_mtim
            #endif
            let start = bytes.count
            bytes.append(contentsOf: prefix.utf8)
            bytes.append(contentsOf: name.utf8)
            files.append(File(start: start, count: bytes.count - start, size: Int64(info.st_size), seconds: Int64(time.tv_sec),
                              nanoseconds: Int64(time.tv_nsec), inode: UInt64(info.st_ino)))
        }

        /// Sorts the files by the bytes of their paths: their order as strings when every path
        /// is ASCII, at a fraction of the cost of comparing strings; each walking thread sorts
        /// its own part.
        mutating func sortByBytes() {
            bytes.withUnsafeBufferPointer { buffer in
                files.sort { Self.precedes($0, $1, buffer, buffer) }
            }
        }

        private static func precedes(_ a: File, _ b: File, _ aBytes: UnsafeBufferPointer<UInt8>, _ bBytes: UnsafeBufferPointer<UInt8>) -> Bool {
            let order = memcmp(aBytes.baseAddress! + a.start, bBytes.baseAddress! + b.start, min(a.count, b.count))
            return order != 0 ? order < 0 : a.count < b.count
        }

        var isASCII: Bool {
            bytes.withUnsafeBufferPointer(UTF8Validation.isASCII)
        }

        /// The files of both parts (each sorted by `sortByBytes()`) as entries sorted by path,
        /// and what they skipped, sorted too.
        static func listing(of first: Gathered, _ second: Gathered = Gathered()) -> Listing {
            var listing = Listing(entries: [], skipped: (first.skipped + second.skipped).sorted { $0.path < $1.path })
            listing.entries.reserveCapacity(first.files.count + second.files.count)
            // Merged by bytes: the order of strings when all are ASCII; otherwise sorted below.
            first.bytes.withUnsafeBufferPointer { one in
                second.bytes.withUnsafeBufferPointer { two in
                    var i = 0, j = 0
                    while i < first.files.count || j < second.files.count {
                        if j == second.files.count || (i < first.files.count && !precedes(second.files[j], first.files[i], two, one)) {
                            listing.entries.append(entry(first.files[i], one))
                            i += 1
                        } else {
                            listing.entries.append(entry(second.files[j], two))
                            j += 1
                        }
                    }
                }
            }
            // A name beyond ASCII may sort otherwise as a string (Unicode canonical order).
            if !first.isASCII || !second.isASCII { listing.entries.sort { $0.path < $1.path } }
            return listing
        }

        private static func entry(_ file: File, _ bytes: UnsafeBufferPointer<UInt8>) -> Entry {
            // Valid UTF-8: made of names the walk validated.
            let path = String(decoding: UnsafeBufferPointer(rebasing: bytes[file.start ..< file.start + file.count]), as: UTF8.self)
            return Entry(path: path, size: file.size, modifiedSeconds: file.seconds, modifiedNanoseconds: file.nanoseconds, inode: file.inode)
        }
    }

    /// The directory stream of `fd` (taking ownership of it).
    private func openDirectory(fd: Int32, prefix: String) throws(FolderWalkError) -> DirectoryStream {
        guard let directory = fdopendir(fd) else {
            let code = errno
            close(fd)
            throw FolderWalkError(path: display(prefix), operation: "opendir", code: code)
        }
        return directory
    }

    /// Lists the directory open at `fd` (taking ownership of it), then its subfolders.
    private func walkDirectory(fd: Int32, prefix: String, into listing: inout Gathered) throws(FolderWalkError) {
        let directory = try openDirectory(fd: fd, prefix: prefix)
        defer { closedir(directory) }
        let subfolders = try list(directory, prefix: prefix, into: &listing)
        try walkSubfolders(subfolders, of: dirfd(directory), prefix: prefix, into: &listing)
    }

    /// Walks the folders `names` of the directory open at `dirFD`.
    private func walkSubfolders(_ names: [String], of dirFD: Int32, prefix: String, into listing: inout Gathered) throws(FolderWalkError) {
        for name in names {
            let childFD = openat(dirFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard childFD >= 0 else {
                // Gone, or replaced by a symbolic link since it was listed: neither is a folder to walk.
                if errno == ENOENT || errno == ELOOP || errno == ENOTDIR { continue }
                throw FolderWalkError(path: prefix + name, operation: "open", code: errno)
            }
            try walkDirectory(fd: childFD, prefix: prefix + name + "/", into: &listing)
        }
    }

    /// Lists one directory's files into `listing`; returns its subfolders' names, sorted.
    private func list(_ directory: DirectoryStream, prefix: String, into listing: inout Gathered) throws(FolderWalkError) -> [String] {
        let dirFD = dirfd(directory)
        var subfolders: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw FolderWalkError(path: display(prefix), operation: "readdir", code: errno) }
                break
            }
            let name: String
            switch Self.name(of: entry) {
            case .hidden: continue  // dot-files, `.`, `..`
            case .notUTF8(let lossy):
                listing.skipped.append(Skipped(path: prefix + lossy, reason: "the name is not valid UTF-8"))
                continue
            case .valid(let valid): name = valid
            }
            let type = Int32(entry.pointee.d_type)
            // Most filesystems give the type in the entry; only a name that could be a note or
            // a folder costs a stat.
            if type == Int32(DT_DIR) {
                subfolders.append(name)
                continue
            }
            guard type == Int32(DT_REG) || type == Int32(DT_UNKNOWN) else { continue }  // links, devices, ...
            let couldBeNote = name.hasSuffix(fileSuffix)
            if type == Int32(DT_REG), !couldBeNote { continue }
            var info = stat()
            guard fstatat(dirFD, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                if errno == ENOENT { continue }
                throw FolderWalkError(path: prefix + name, operation: "stat", code: errno)
            }
            let format = info.st_mode & S_IFMT
            if format == S_IFDIR {
                subfolders.append(name)
            } else if format == S_IFREG, couldBeNote {
                listing.add(prefix: prefix, name: name, info)
            }
        }
        return subfolders.sorted()
    }

    private enum Name {
        case hidden
        case notUTF8(lossy: String)
        case valid(String)
    }

    /// An entry's name, read in place from the directory stream's buffer: no copy but the
    /// string itself (none at all for a name of up to 15 bytes, which Swift keeps inline). On
    /// 10,000 notes the copies this saves were a tenth of a no-op sync's walk.
    private static func name(of entry: UnsafeMutablePointer<dirent>) -> Name {
        withUnsafePointer(to: &entry.pointee.d_name) { tuple in
            tuple.withMemoryRebound(to: CChar.self, capacity: 256) { start in
                let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(start).assumingMemoryBound(to: UInt8.self), count: strlen(start))
                guard let first = bytes.first, first != UInt8(ascii: ".") else { return .hidden }
                // An ASCII name (nearly all) is valid as it is: `String(validating:as:)` is not
                // specialised and looked up generic metadata on every call, a quarter of each
                // walking thread's instructions on 10,000 notes.
                if UTF8Validation.isASCII(bytes) { return .valid(String(decoding: bytes, as: UTF8.self)) }
                guard let name = String(validating: bytes, as: UTF8.self) else { return .notUTF8(lossy: String(decoding: bytes, as: UTF8.self)) }
                return .valid(name)
            }
        }
    }

    private func display(_ prefix: String) -> String {
        prefix.isEmpty ? root : prefix
    }
}

/// A folder that could not be walked: which one, what failed, and the system's reason.
struct FolderWalkError: Error, Sendable, CustomStringConvertible {
    var path: String
    var operation: String
    var code: Int32

    var description: String {
        "cannot \(operation == "stat" ? "read" : "list") \(path): \(String(cString: strerror(code)))"
    }
}
