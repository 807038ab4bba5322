import Foundation
import NotesCore
import Testing

/// Where the attachment bytes of the servers under test go in this pass.
///
/// By default beside the database (its directory, or inside PostgreSQL). With
/// `NOTES_TEST_CONTENT_STORE=s3` (`Tests/s3/run.sh` sets it, with a SeaweedFS it started), every
/// `TestServer` and `TestApp` keeps them in the bucket `NOTES_TEST_S3_BUCKET` at
/// `NOTES_TEST_S3_ENDPOINT`, signed with `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, under a
/// prefix of its own made from its database's location: servers sharing a database share the
/// store, as a deployment does.
public enum TestContentStore {
    /// Whether this pass keeps attachments in S3.
    public static let isS3: Bool = ProcessInfo.processInfo.environment["NOTES_TEST_CONTENT_STORE"]?.lowercased() == "s3"

    /// Why a test that reads the content directory itself does not run on the S3 pass.
    public static let directoryOnlyReason =
        "reads the content directory beside the SQLite file: the S3 pass (NOTES_TEST_CONTENT_STORE=s3) keeps contents in a bucket"

    /// The S3 store for a database: `s3://BUCKET/PREFIX`, the endpoint, and the environment with
    /// the credentials; nil when this pass keeps contents beside the database.
    public static func s3(forDatabase location: String) -> (store: String, endpoint: String, environment: [String: String])? {
        guard isS3 else { return nil }
        let environment = ProcessInfo.processInfo.environment
        let bucket = environment["NOTES_TEST_S3_BUCKET"] ?? "notes-test"
        let endpoint = environment["NOTES_TEST_S3_ENDPOINT"] ?? "http://127.0.0.1:8333"
        let credentials = ["AWS_ACCESS_KEY_ID": environment["AWS_ACCESS_KEY_ID"] ?? "",
                           "AWS_SECRET_ACCESS_KEY": environment["AWS_SECRET_ACCESS_KEY"] ?? ""]
        return ("s3://\(bucket)/\(prefix(forDatabase: location))", endpoint, credentials)
    }

    /// The key prefix of a database's contents: the same for every server on that database.
    public static func prefix(forDatabase location: String) -> String {
        "t-" + String(SHA256.hex(of: location).prefix(20))
    }

    /// The `serve` flags and environment for a server on the database at `location`.
    public static func serveArguments(forDatabase location: String) -> (arguments: [String], environment: [String: String]) {
        guard let s3 = s3(forDatabase: location) else { return ([], [:]) }
        return (["--content-store", s3.store, "--s3-endpoint", s3.endpoint], s3.environment)
    }
}

extension Trait where Self == ConditionTrait {
    /// For a test that reads the content directory beside the SQLite file itself: skipped, with
    /// the reason, on the S3 pass (`NOTES_TEST_CONTENT_STORE=s3`).
    public static var directoryStoreOnly: Self {
        .enabled(if: !TestContentStore.isS3, Comment(rawValue: TestContentStore.directoryOnlyReason))
    }
}
