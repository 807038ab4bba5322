import CMicroHTTPD

/// The access-handler protocol of libmicrohttpd, turned into one `respond(to:)` call per request.
///
/// libmicrohttpd calls the handler repeatedly for one request: once when the headers are in
/// (`*con_cls` still nil), once per body chunk, once more with no data when the body is complete,
/// and again after a suspended connection is resumed. `RequestState` carries the request across
/// those calls.
extension HTTPServer {
    /// What the headers announce about the body, decided before any of it is read.
    private enum BodyPlan {
        case none
        case sized(Int)
        case chunked
        case tooLarge
        case malformed
    }

    /// Entry point from the C access handler; returns `.NO` only to make libmicrohttpd close the connection.
    func handle(
        connection: OpaquePointer,
        url: UnsafePointer<CChar>?,
        method: UnsafePointer<CChar>?,
        upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>,
        context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let existing = context.pointee else {
            return begin(connection: connection, url: url, method: method, context: context)
        }
        let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            // Always consume the chunk, even when discarding it, or libmicrohttpd offers it again.
            if let upload, state.status == nil {
                state.append(UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee), limit: configuration.maxBodyBytes)
            }
            uploadSize.pointee = 0
            return .YES
        }
        if let ready = state.takeReadyResponse() {
            return send(ready, for: state)
        }
        if state.status != nil {
            return .YES
        }
        return complete(state)
    }

    /// First call: create the state and refuse bad or oversized bodies before reading them.
    private func begin(
        connection: OpaquePointer,
        url: UnsafePointer<CChar>?,
        method: UnsafePointer<CChar>?,
        context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let validPath = url.flatMap { String(validatingCString: $0) }
        let state = RequestState(
            id: RequestID.make(),
            method: method.map { String(cString: $0).uppercased() } ?? "",
            path: validPath ?? url.map { String(cString: $0) } ?? "",
            connection: connection
        )
        context.pointee = Unmanaged.passRetained(state).toOpaque()
        activity.withLock { $0.inFlight += 1 }
        guard validPath != nil else {
            return send(.error(.badRequest("The URL path is not valid UTF-8.", code: "invalid_path")), for: state)
        }
        switch bodyPlan(connection) {
        case .none:
            // Answer on the next call, once libmicrohttpd has finished reading the request:
            // a response queued during the header callback makes it close the connection
            // (no keep-alive), which would cost a TCP handshake per request.
            return .YES
        case .sized(let length):
            // Reserve modestly: the client's number is a claim, not yet bytes.
            state.body.reserveCapacity(min(length, 64 * 1024))
            return .YES
        case .chunked:
            return .YES
        case .tooLarge:
            return send(.error(.payloadTooLarge(limit: configuration.maxBodyBytes)), for: state)
        case .malformed:
            let error = HTTPError.badRequest("The Content-Length header is not a valid length.", code: "invalid_content_length")
            return send(.error(error), for: state)
        }
    }

    private func bodyPlan(_ connection: OpaquePointer) -> BodyPlan {
        if MHDConnection.header("Transfer-Encoding", of: connection) != nil {
            return .chunked
        }
        guard let declared = MHDConnection.header("Content-Length", of: connection) else {
            return .none
        }
        let digits = declared.trimmingASCIIWhitespace()
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return .malformed
        }
        guard let length = Int(digits), length <= configuration.maxBodyBytes else {
            return .tooLarge // too many digits for Int is certainly over the limit
        }
        return length == 0 ? .none : .sized(length)
    }

    /// The body is complete: build the request and ask the responder.
    private func complete(_ state: RequestState) -> MHD_Result {
        if state.overflowed {
            return send(.error(.payloadTooLarge(limit: configuration.maxBodyBytes)), for: state)
        }
        let connection = state.connection
        guard let query = MHDConnection.query(of: connection) else {
            return send(.error(.badRequest("A query parameter holds a NUL character (%00).", code: "invalid_query")), for: state)
        }
        let request = HTTPRequest(
            id: state.id,
            method: state.method,
            path: state.path,
            query: query,
            headers: MHDConnection.headers(of: connection),
            body: state.body,
            remoteAddress: MHDInfo.clientAddress(of: connection)
        )
        state.body = []
        switch responder.respond(to: request) {
        case .now(let response):
            return send(response, for: state)
        case .later(let work):
            return suspend(state, running: work)
        }
    }

    /// Suspends the connection and answers from a `Task` once `work` finishes.
    private func suspend(_ state: RequestState, running work: @escaping @Sendable () async -> HTTPResponse) -> MHD_Result {
        let admitted = activity.withLock { activity in
            guard !activity.closing else { return false }
            activity.suspended[ObjectIdentifier(state)] = state
            return true
        }
        guard admitted else {
            return send(.error(.shuttingDown), for: state)
        }
        MHD_suspend_connection(state.connection)
        state.markSuspended()
        Task {
            let response = await work()
            self.resume(state, with: response)
        }
        return .YES
    }

    /// Resumes a suspended connection with `response`, unless someone else already did.
    ///
    /// The registry entry goes only after `MHD_resume_connection` returned, so shutdown, which
    /// waits for an empty registry, never stops the daemon with a connection still suspended.
    func resume(_ state: RequestState, with response: HTTPResponse) {
        guard state.claimResume(with: response) else { return }
        MHD_resume_connection(state.connection)
        activity.withLock { _ = $0.suspended.removeValue(forKey: ObjectIdentifier(state)) }
    }

    private func send(_ response: HTTPResponse, for state: RequestState) -> MHD_Result {
        let closeAfter = draining.load(ordering: .relaxed)
        if let status = MHDConnection.queue(response, requestID: state.id, closeAfter: closeAfter, on: state.connection) {
            state.status = status
            return .YES
        }
        state.status = 500
        return .NO
    }

    /// Called from libmicrohttpd's completion notice: one log line, and the request stops counting.
    ///
    /// A request that never got an answer (the client went away) is logged as 499, as nginx does.
    func requestCompleted(_ state: RequestState) {
        activity.withLock { $0.inFlight -= 1 }
        let status = state.status.map(String.init) ?? "499"
        log("req=\(state.id) \(state.method) \(LogText.escaped(state.path)) \(status) \(state.elapsedMilliseconds())ms")
    }
}

private extension String {
    func trimmingASCIIWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
