/// A content store as the database records it (`ContentStoreRecord`): the one beside the
/// database (a directory beside SQLite, rows in PostgreSQL), or an S3-compatible bucket. Holds
/// no credential: each server signs with its own.
enum ContentStoreAddress: Sendable, Equatable, CustomStringConvertible {
    case database
    case s3(S3Location)

    /// The word for the store beside the database, in the table and on the command line
    /// (`migrate-content --to database`).
    static let databaseWord = "database"

    /// `database` or `s3://BUCKET/PREFIX at ENDPOINT`.
    var description: String {
        switch self {
        case .database: Self.databaseWord
        case .s3(let location): location.description
        }
    }

    /// The columns that record it: the store (`database` or `s3://BUCKET/PREFIX`), the endpoint
    /// and the region.
    var columns: (store: String, endpoint: String?, region: String?) {
        switch self {
        case .database: (Self.databaseWord, nil, nil)
        case .s3(let location): (location.storeURL, location.endpoint.absoluteString, location.region)
        }
    }

    /// The address those columns record.
    /// - Throws: `S3ConfigurationError` when the columns name no usable bucket.
    init(store: String, endpoint: String?, region: String?) throws {
        if store == Self.databaseWord {
            self = .database
        } else {
            self = .s3(try S3Location(store: store, endpoint: endpoint, region: region))
        }
    }
}

extension S3Location {
    /// `s3://BUCKET/PREFIX`, as `--content-store` takes it.
    var storeURL: String { "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)") }
}
