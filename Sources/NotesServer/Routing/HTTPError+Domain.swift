import NotesCore

/// A domain error that names its own answer (a session's `invalid_grant`, a refused personal
/// token), as Hummingbird's `HTTPResponseError` lets an error render itself. Stores throw these;
/// only `HTTPError.answer(for:)` turns them into responses.
protocol HTTPAnswerable: Error {
    var httpError: HTTPError { get }
}

/// The one place where domain errors thrown by stores become answers: a `DatabaseError` from
/// failing storage, a `NotePathError` for a refused new path, and every `HTTPAnswerable`. The
/// router, the batch and deferred handlers ask this mapping, so no store has to speak HTTP.
extension HTTPError {
    /// 400 `invalid_path`, naming the rule the path breaks (or the character and why).
    static func invalidPath(_ error: NotePathError) -> HTTPError {
        .badRequest("Invalid path: \(error).", code: "invalid_path")
    }

    /// The answer for a failure of the storage under the database, or `nil` for any other
    /// database error (a bug or bad data: a bare 500). Nothing was written in either case: the
    /// transaction was rolled back.
    /// - A full disk or `--max-db-size` reached: `507 insufficient_storage`. Reads go on; writes
    ///   work again as soon as space is freed, without a restart.
    /// - A read-only, vanished or unreachable database, or one locked past the busy timeout:
    ///   `503 storage_unavailable` with `Retry-After`.
    init?(storageFailure error: DatabaseError) {
        self.init(storageFailureOf: error.kind)
    }

    private init?(storageFailureOf kind: DatabaseError.Kind) {
        switch kind {
        case .full:
            self.init(507, code: "insufficient_storage",
                      message: "The server has no room left to store this change; nothing was saved. Retry once its operator has freed space.")
        case .readOnly, .unavailable:
            self.init(503, code: "storage_unavailable",
                      message: "The server cannot write to its database right now; nothing was saved. Retry later.",
                      headers: ["Retry-After": "5"])
        case .busy:
            self.init(503, code: "storage_busy", message: "The server's database is busy; nothing was saved. Retry shortly.",
                      headers: ["Retry-After": "1"])
        case .constraint, .other:
            return nil
        }
    }

    /// The same answers for PostgreSQL: its disk full (`53100`) is a 507; a lost or refused
    /// connection, a server shutting down, too many connections or a pool that stayed busy is a
    /// 503 `storage_unavailable`; a transaction that kept losing races past its retries is a 503
    /// `storage_busy`. Nothing was written in either case.
    init?(storageFailure error: PostgresError) {
        if error.sqlState == "53100" {
            self.init(storageFailureOf: .full)
        } else if error.isRetryable {
            self.init(storageFailureOf: .busy)
        } else if error.isConnectionFailure || error.isStorageFailure {
            self.init(storageFailureOf: .unavailable)
        } else {
            return nil
        }
    }

    /// `error` as the answer the client gets: the one the API names (an `HTTPError` itself, a
    /// refused path, or a storage failure, which is also logged for the operator with
    /// `requestID`), or for anything else a 500 whose details go only to the log.
    static func answer(for error: any Error, requestID: String, log: @Sendable (String) -> Void) -> HTTPError {
        if let refusal = refusal(for: error) { return refusal }
        if let error = error as? DatabaseError, let answer = HTTPError(storageFailure: error) {
            // Loud on purpose: the operator must act (free space, restore the file, fix the mount).
            log("req=\(requestID) STORAGE FAILURE, answered \(answer.status): \(error)")
            return answer
        }
        if let error = error as? PostgresError, let answer = HTTPError(storageFailure: error) {
            log("req=\(requestID) STORAGE FAILURE, answered \(answer.status): \(error)")
            return answer
        }
        log("req=\(requestID) internal error: \(error)")
        return .internal
    }

    /// `error` as an answer when it is a refusal of this one request (an `HTTPError`, a refused
    /// path, a domain error that names its answer); `nil` for anything else, storage failures
    /// included, which must roll back everything written with it (a batch answers those whole).
    static func refusal(for error: any Error) -> HTTPError? {
        if let error = error as? HTTPError { return error }
        if let error = error as? NotePathError { return .invalidPath(error) }
        if let error = error as? any HTTPAnswerable { return error.httpError }
        return nil
    }
}
