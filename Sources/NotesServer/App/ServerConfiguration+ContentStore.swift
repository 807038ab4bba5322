import Foundation

extension ServerConfiguration {
    /// The content store a server uses: its own `--content-store` (`beside`: the database's
    /// own), switched to whatever store the database records (`migrate-content`) now and
    /// whenever `SwitchingBlobStore.refresh` reads a new record.
    /// - Throws: the database's failure, or `S3ConfigurationError` for a record naming no usable bucket.
    func switchingBlobStore(beside: any BlobStore, database: ServerDatabase) throws -> SwitchingBlobStore {
        let own = contentStore
        let credentialsFile = s3CredentialsFile
        let timeouts = objectStorageTimeouts
        let switching = SwitchingBlobStore(configured: own.blobStore(beside: beside, timeouts: timeouts)) { address in
            switch address {
            case .database:
                return beside
            case .s3(let location):
                if case .s3(let configured, let credentials) = own, configured == location {
                    return S3BlobStore(bucket: ContentStoreChoice.bucket(location, credentials, timeouts: timeouts))
                }
                let credentials = try S3Credentials.load(environment: ProcessInfo.processInfo.environment, file: credentialsFile)
                return S3BlobStore(bucket: ContentStoreChoice.bucket(location, credentials, timeouts: timeouts))
            }
        }
        try switching.refresh(from: database)
        return switching
    }
}

extension SwitchingBlobStore {
    /// Reads the record again and switches to the store it names. - Returns: whether it changed.
    @discardableResult
    func refresh(from database: ServerDatabase) throws -> Bool {
        use(try database.read { db in try ContentStoreRecord.read(db) })
    }
}
