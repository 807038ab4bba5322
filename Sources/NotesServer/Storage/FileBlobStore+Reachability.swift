#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileBlobStore {
    /// The content directory is a folder the server may write into. One that does not exist
    /// yet is fine: it is made at the first upload, in the database's folder, which the
    /// database being open shows to be there.
    func checkReachable() throws(BlobStoreError) {
        var info = stat()
        guard stat(root, &info) == 0 else {
            if errno == ENOENT { return }
            throw BlobStoreError(operation: "reach the content directory", code: errno)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw BlobStoreError(operation: "reach the content directory", code: ENOTDIR)
        }
        guard access(root, W_OK | X_OK) == 0 else {
            throw BlobStoreError(operation: "write into the content directory", code: errno)
        }
    }
}
