import NotesCore

/// `GET /v1/changes`: one page of the feed, at once or, with `wait`, once there is something.
///
/// A long poll (`wait=S`, 1 to 60) that finds nothing after its cursor is held without a thread
/// (the connection is suspended, the request is a continuation in the `ChangeNotifier`) until a
/// write for the same user commits or the wait ends; it then answers as an ordinary request
/// would have: the new page, or the empty page with the same cursor it found at first.
extension SyncController {
    /// The query of a changes request, validated.
    struct ChangesQuery: Sendable {
        let user: Int64
        let since: NoteChangesCursor
        let limit: Int
        let includeContent: Bool
        /// The kinds of entry the client announced (`kinds=`); none: notes only, as a client that knows no attachments expects.
        let kinds: EntryKindFilter
        /// Seconds to hold the request when nothing changed (0: answer at once).
        let waitSeconds: Int
    }

    /// A page read from the feed, ready to send.
    struct ChangesAnswer: Sendable {
        var response: HTTPResponse
        /// No change after the cursor: no note, and the cursor stays where it was.
        let isEmpty: Bool

        /// The same answer with its body in storage of its own size, to be kept while a request is held.
        func compacted() -> ChangesAnswer {
            var copy = self
            copy.response.body = response.body.withUnsafeBufferPointer { Array($0) }
            return copy
        }
    }

    /// The longest `wait` a request may ask for, whatever the server's `--max-wait`.
    static let waitRange = 0...60

    /// Seconds a request refused by a waiter cap is asked to wait before polling again.
    static let retryAfterPastCapSeconds = 5

    /// The page bound when the limits do not set one.
    static let defaultPageBytes = 4 * 1024 * 1024

    func changes(_ context: RequestContext) throws -> HTTPOutcome {
        let query = try changesQuery(context)
        // Read before the feed, so a change committing between the read and the wait still wakes it.
        let mark = store.notifier.mark(for: query.user)
        let first = try page(query)
        guard query.waitSeconds > 0, first.isEmpty else { return .now(first.response) }
        let address = context.request.remoteAddress
        guard waiting.admit(user: query.user, address: address) else {
            var refused = first.response
            refused.headers["Retry-After"] = String(Self.retryAfterPastCapSeconds)
            return .now(refused)
        }
        let deadline = ContinuousClock.now + .seconds(min(query.waitSeconds, maxWaitSeconds))
        let requestID = context.request.id
        let recheck = context.recheckAccess
        // The page writer reserved room for a full page (256 KiB); a held empty page keeps only its bytes.
        let empty = first.compacted()
        return .later { [self] in
            defer { waiting.release(user: query.user, address: address) }
            var response = await hold(query, empty: empty, mark: mark, until: deadline, recheck: recheck, requestID: requestID)
            // libmicrohttpd (0.9.75) zeroes a connection's whole memory pool (64 KiB) after each
            // request, so a kept-alive connection weighs 64 KiB while a new one weighs only the
            // pages its request touches. Closing after a held answer keeps an idle watcher's
            // next poll light, at the cost of one handshake per wait.
            response.headers["Connection"] = "close"
            return response
        }
    }

    /// Waits for the user's next change after `mark`, and answers with the page it brings, or
    /// with `empty` (the page found at first) once `deadline` passes or the server shuts down.
    /// In a space, each wake-up first asks `recheck` whether the caller may still reach it: a
    /// removed member's wait ends with 404 (a removal wakes the space's waiters).
    private func hold(_ query: ChangesQuery, empty: ChangesAnswer, mark: ChangeMark, until deadline: ContinuousClock.Instant,
                      recheck: (@Sendable () throws -> Void)?, requestID: String) async -> HTTPResponse {
        var seen = mark
        while true {
            switch await store.notifier.wait(user: query.user, after: seen, until: deadline) {
            case .timedOut, .closed:
                return empty.response
            case .changed(let now):
                seen = now
                do {
                    try recheck?()
                    let next = try page(query)
                    // A write that changed nothing (a retried create) is no reason to answer yet.
                    if !next.isEmpty { return next.response }
                } catch {
                    // What the router would have answered (the cursor fell behind a purge: 410;
                    // the database went away: 503).
                    return .error(HTTPError.answer(for: error, requestID: requestID, log: log))
                }
            }
        }
    }

    private func changesQuery(_ context: RequestContext) throws -> ChangesQuery {
        var since = NoteChangesCursor.start
        if let raw = context.request.query["since"], !raw.isEmpty {
            guard let cursor = NoteChangesCursor(raw) else {
                throw HTTPError.badRequest("since must be a cursor returned by this endpoint.", code: "invalid_cursor")
            }
            since = cursor
        }
        let limit = try context.intQuery("limit", default: 500, range: 1...store.limits.maxPageSize)
        let include = context.request.query["include"] ?? ""
        guard include.isEmpty || include == "content" else {
            throw HTTPError.badRequest("include accepts only \"content\".", code: "invalid_parameter")
        }
        let wait = try context.intQuery("wait", default: 0, range: Self.waitRange)
        return ChangesQuery(user: try context.caller().userID, since: since, limit: limit,
                            includeContent: include == "content", kinds: try context.kindsQuery(), waitSeconds: wait)
    }

    /// Reads one page of the feed after the query's cursor.
    private func page(_ query: ChangesQuery) throws -> ChangesAnswer {
        var writer = ChangesPageWriter(maxBytes: store.limits.maxPageBytes ?? Self.defaultPageBytes)
        let end = try store.changes(userID: query.user, since: query.since, limit: query.limit, includeContent: query.includeContent,
                                   kinds: query.kinds) { note in
            try writer.append(note.resource)
        }
        let isEmpty = writer.count == 0 && end.cursor == query.since
        let body = try writer.finish(cursor: end.cursor.text, hasMore: end.hasMore, userId: query.user)
        return ChangesAnswer(response: HTTPResponse(status: 200, headers: ["Content-Type": HTTPResponse.jsonContentType], body: body),
                             isEmpty: isEmpty)
    }
}
