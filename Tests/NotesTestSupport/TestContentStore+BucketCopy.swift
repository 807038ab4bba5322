import Foundation

extension TestContentStore {
    /// The pass's bucket, endpoint and credentials (nil off the S3 pass).
    private static var passBucket: (endpoint: String, bucket: String, credentials: (id: String, secret: String))? {
        guard isS3 else { return nil }
        let environment = ProcessInfo.processInfo.environment
        return (environment["NOTES_TEST_S3_ENDPOINT"] ?? "http://127.0.0.1:8333", environment["NOTES_TEST_S3_BUCKET"] ?? "notes-test",
                (environment["AWS_ACCESS_KEY_ID"] ?? "", environment["AWS_SECRET_ACCESS_KEY"] ?? ""))
    }

    /// Copies every object under the prefix of the database at `location` into `folder`, each at
    /// its key below the prefix, as an operator's `aws s3 cp --recursive` would. - Returns: how many.
    public static func downloadObjects(forDatabase location: String, into folder: String) async throws -> Int {
        guard let pass = passBucket else { return 0 }
        let prefix = self.prefix(forDatabase: location) + "/"
        let keys = try await S3Curl.keys(endpoint: pass.endpoint, bucket: pass.bucket, prefix: prefix, credentials: pass.credentials)
        for key in keys {
            let answer = try await S3Curl.run(["--create-dirs", "-o", folder + "/" + key.dropFirst(prefix.count), "\(pass.endpoint)/\(pass.bucket)/\(key)"],
                                              credentials: pass.credentials)
            guard answer.status == 200 else { throw BucketCopyError(key: key, status: answer.status) }
        }
        return keys.count
    }

    /// Puts every file under `folder` back as an object under the prefix of the database at
    /// `location`. - Returns: how many.
    public static func uploadObjects(from folder: String, forDatabase location: String) async throws -> Int {
        guard let pass = passBucket, let walker = FileManager.default.enumerator(atPath: folder) else { return 0 }
        let prefix = self.prefix(forDatabase: location) + "/"
        var count = 0
        while let name = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            let answer = try await S3Curl.run(["-T", folder + "/" + name, "\(pass.endpoint)/\(pass.bucket)/\(prefix)\(name)"], credentials: pass.credentials)
            guard answer.status == 200 else { throw BucketCopyError(key: prefix + name, status: answer.status) }
            count += 1
        }
        return count
    }
}

/// An object a bucket copy could not read or write.
public struct BucketCopyError: Error, CustomStringConvertible {
    public let key: String
    public let status: Int
    public var description: String { "copying the object \(key) answered \(status)" }
}
