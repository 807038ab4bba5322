import Foundation
import NotesCommandLine

/// Where attachment bytes go (docs/architecture.md §6.3): beside the database (a directory
/// beside a SQLite file, inside PostgreSQL), or an S3-compatible bucket with either database
/// (`--content-store s3://BUCKET/PREFIX`).
enum ContentStoreChoice: Sendable {
    case besideDatabase
    case s3(S3Location, S3Credentials)

    /// The options that choose it, shared by `serve` and `migrate-content`.
    static func options(storeOption: String = "content-store") -> [OptionSpec] {
        [
            .value(storeOption, .url, placeholder: "URL",
                   help: "Keep attachment bytes in an S3-compatible bucket, s3://BUCKET/PREFIX (default: beside the database). "
                       + "Credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or --s3-credentials-file"),
            .value("s3-endpoint", .url, placeholder: "URL",
                   help: "The S3 endpoint, e.g. http://127.0.0.1:8333 (default: AWS for --s3-region)"),
            .value("s3-region", placeholder: "REGION", help: "The region requests are signed for (default us-east-1)"),
            .value("s3-credentials-file", .file, placeholder: "FILE",
                   help: "An AWS shared credentials file (aws_access_key_id, aws_secret_access_key under [default] or $AWS_PROFILE)"),
        ]
    }

    /// The choice a command line makes with `options(storeOption:)`.
    /// - Throws: `UsageError` for S3 options without a store, a malformed store URL or endpoint,
    ///   or missing credentials (named, never shown).
    static func parse(_ parsed: ParsedCommand, storeOption: String = "content-store",
                      environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ContentStoreChoice {
        try parse(store: parsed.value(storeOption), endpoint: parsed.value("s3-endpoint"), region: parsed.value("s3-region"),
                  credentialsFile: parsed.value("s3-credentials-file"), storeOption: storeOption, environment: environment)
    }

    static func parse(store: String?, endpoint: String?, region: String?, credentialsFile: String?, storeOption: String = "content-store",
                      environment: [String: String]) throws -> ContentStoreChoice {
        guard let store else {
            // A credentials file alone is for a store the database records (`migrate-content`).
            if endpoint != nil || region != nil {
                throw UsageError("--s3-endpoint and --s3-region go with --\(storeOption) s3://BUCKET/PREFIX")
            }
            return .besideDatabase
        }
        do {
            let location = try S3Location(store: store, endpoint: endpoint, region: region)
            return .s3(location, try S3Credentials.load(environment: environment, file: credentialsFile))
        } catch let error as S3ConfigurationError {
            throw UsageError(error.description)
        }
    }

    /// The bucket an `s3` choice names, with its signer and a client.
    static func bucket(_ location: S3Location, _ credentials: S3Credentials,
                       timeouts: ObjectStorageTimeouts = ObjectStorageTimeouts()) -> S3Bucket {
        S3Bucket(location: location, signer: SigV4Signer(credentials: credentials, region: location.region),
                 client: CurlObjectStorageClient(timeouts: timeouts))
    }
}

extension ContentStoreChoice {
    /// Whether the bytes are in an S3 bucket (not in a PostgreSQL database or beside SQLite).
    var isS3: Bool {
        if case .s3 = self { return true }
        return false
    }

    /// The blob store this choice makes: `beside` (the database's own) unless a bucket is named,
    /// whose exchanges are bounded by `timeouts`.
    func blobStore(beside: @autoclosure () -> any BlobStore,
                   timeouts: ObjectStorageTimeouts = ObjectStorageTimeouts()) -> any BlobStore {
        switch self {
        case .besideDatabase: beside()
        case .s3(let location, let credentials): S3BlobStore(bucket: Self.bucket(location, credentials, timeouts: timeouts))
        }
    }
}
