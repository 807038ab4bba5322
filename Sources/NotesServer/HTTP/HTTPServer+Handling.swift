import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        /// A `Transfer-Encoding` other than plain chunked: libmicrohttpd would wait for a body
        /// it cannot frame and never answer.
        case unsupportedEncoding
        /// Chunked, but not as the last coding (RFC 9112 §6.3: the length cannot be known).
        case invalidEncoding
    }

    /// From the URI callback: a request line arrived, before its query is parsed or its headers read.
    ///
    /// The request's state starts here (its return value becomes `*con_cls`). A query with more
    /// parameters than the server reads is cut off in libmicrohttpd's own buffer (its `?` and
    /// the rest overwritten with NULs, so the library parses no parameters): parsing a thousand
    /// of them would exhaust the connection's memory pool, and libmicrohttpd then drops the
    /// request without any answer. The request is answered 414 once its headers are in.
    func requestLineArrived(uri: UnsafePointer<CChar>?, connection: OpaquePointer) -> UnsafeMutableRawPointer? {
        let state = RequestState(id: RequestID.make(), connection: connection)
        inFlight.add(1, ordering: .relaxed)
        if let uri {
            let length = strlen(uri)
            let bytes = UnsafeRawBufferPointer(start: uri, count: length)
            if let question = bytes.firstIndex(of: UInt8(ascii: "?")) {
                let count = 1 + bytes[question...].count(where: { $0 == UInt8(ascii: "&") })
                if count > configuration.maxQueryParameters {
                    UnsafeMutableRawPointer(mutating: uri + question).initializeMemory(as: UInt8.self, repeating: 0, count: length - question)
                    state.refusal = .tooManyQueryParameters(limit: configuration.maxQueryParameters)
                }
            }
        }
        return Unmanaged.passRetained(state).toOpaque()
    }

    /// From the connection notice: a connection opened (it must send its first request in
    /// time) or closed (forget it before libmicrohttpd closes its socket).
    func connectionChanged(_ connection: OpaquePointer, opened: Bool) {
        if opened { acceptedConnections.add(1, ordering: .relaxed) }
        guard configuration.requestHeaderTimeoutSeconds > 0 else { return }
        if opened {
            deadlines.opened(connection, socket: notes_mhd_connection_fd(connection), deadline: headerDeadline())
        } else {
            deadlines.closed(connection)
        }
    }

    private func headerDeadline() -> ContinuousClock.Instant {
        .now + .seconds(configuration.requestHeaderTimeoutSeconds)
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
        let state: RequestState
        if let existing = context.pointee {
            state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
        } else {
            // The URI callback always creates the state; this only guards against a library
            // that skipped it.
            state = RequestState(id: RequestID.make(), connection: connection)
            context.pointee = Unmanaged.passRetained(state).toOpaque()
            inFlight.add(1, ordering: .relaxed)
        }
        if !state.headersSeen {
            return begin(state, url: url, method: method)
        }
        if uploadSize.pointee > 0 {
            if let deadline = state.bodyDeadline, ContinuousClock.now > deadline {
                // Too slow, however steadily: close rather than read on (the log says 408).
                state.status = 408
                uploadSize.pointee = 0
                return .NO
            }
            // Always consume the chunk, even when discarding it, or libmicrohttpd offers it again.
            if let upload, state.status == nil {
                receive(UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee), into: state)
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

    /// First call, headers in: refuse bad requests and decide about the body before reading it.
    private func begin(_ state: RequestState, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?) -> MHD_Result {
        let connection = state.connection
        state.headersSeen = true
        let validPath = url.flatMap { String(validatingCString: $0) }
        state.method = method.map { Self.uppercasedMethod(String(cString: $0)) } ?? ""
        state.path = validPath ?? url.map { String(cString: $0) } ?? ""
        let peer = MHDInfo.clientAddress(of: connection)
        state.remoteAddress = resolvedAddress(peer: peer, of: connection)
        // Without trusted proxies no header can make a request secure: skip reading them.
        state.isSecure = configuration.tlsCertificatePEM != nil || (!configuration.trustedProxies.isEmpty && ClientAddress.forwardedHTTPS(
            peer: peer,
            forwardedProto: MHDConnection.headers(of: connection).values(for: "X-Forwarded-Proto"), trusted: configuration.trustedProxies))
        if let refusal = state.refusal {
            return send(.error(refusal), for: state)
        }
        // Here rather than by libmicrohttpd's pool alone, whose own 431 is an HTML page.
        if MHDConnection.headerBytes(of: connection) > configuration.maxHeaderBytes {
            return send(.error(.headersTooLarge(limit: configuration.maxHeaderBytes)), for: state)
        }
        guard validPath != nil else {
            return send(.error(.badRequest("The URL path is not valid UTF-8.", code: "invalid_path")), for: state)
        }
        switch bodyPlan(connection) {
        case .none:
            // Answer on the next call, once libmicrohttpd has finished reading the request:
            // a response queued during the header callback makes it close the connection
            // (no keep-alive), which would cost a TCP handshake per request.
            deadlines.setDeadline(connection, nil)
            return .YES
        case .sized(let length):
            return admitBody(of: state, length: length)
        case .chunked:
            return admitBody(of: state, length: nil)
        case .tooLarge:
            return refuseBody(of: state, .payloadTooLarge(limit: configuration.maxBodyBytes))
        case .malformed:
            let error = HTTPError.badRequest("The Content-Length header is not a valid length.", code: "invalid_content_length")
            return send(.error(error), for: state)
        case .unsupportedEncoding:
            return send(.error(.unsupportedTransferEncoding), for: state)
        case .invalidEncoding:
            return send(.error(.invalidTransferEncoding), for: state)
        }
    }

    /// The request as known before its body: everything but the body.
    private func head(of state: RequestState) -> HTTPRequest {
        let connection = state.connection
        return HTTPRequest(
            id: state.id,
            method: state.method,
            path: state.path,
            query: MHDConnection.query(of: connection) ?? [:],
            headers: MHDConnection.headers(of: connection),
            remoteAddress: state.remoteAddress,
            isSecure: state.isSecure
        )
    }

    /// Refuses the request for its body, with the responder's answer (a page for a browser).
    private func refuseBody(of state: RequestState, _ error: HTTPError) -> MHD_Result {
        send(responder.refusal(error, for: head(of: state)), for: state)
    }

    /// Asks the responder about a body from the head alone, then reserves its memory.
    /// `length` is nil for a chunked body, whose memory is reserved as chunks arrive.
    private func admitBody(of state: RequestState, length: Int?) -> MHD_Result {
        switch responder.admitBody(of: head(of: state)) {
        case .refuse(let error):
            return refuseBody(of: state, error)
        case .accept(let maxBytes):
            state.bodyLimit = min(maxBytes, configuration.maxBodyBytes)
        case .stream(let sink, let maxBytes):
            // On disk, not in memory: no share of the body budget to reserve.
            state.sink = sink
            state.bodyLimit = min(maxBytes, configuration.maxBodyBytes)
            if let length, length > state.bodyLimit {
                return refuseBody(of: state, .payloadTooLarge(limit: state.bodyLimit))
            }
            state.chunked = length == nil
            countBodyInFlight(state)
            setBodyDeadline(of: state, length: length)
            return .YES
        }
        if let length {
            guard length <= state.bodyLimit else {
                return refuseBody(of: state, .payloadTooLarge(limit: state.bodyLimit))
            }
            guard bodyBudget.reserve(length) else {
                return send(.error(.bodyBudgetExhausted), for: state)
            }
            state.reservedBytes = length
            // The budget already counts these bytes, so take them at once (no regrowth copies).
            state.body.reserveCapacity(length)
        } else {
            state.chunked = true
        }
        countBodyInFlight(state)
        setBodyDeadline(of: state, length: length)
        return .YES
    }

    /// The request's body is admitted: it counts among the bodies in flight until it completes.
    private func countBodyInFlight(_ state: RequestState) {
        state.receivesBody = true
        bodiesInFlight.add(1, ordering: .relaxed)
    }

    /// The body must arrive by the header deadline plus its size at the minimum upload rate.
    private func setBodyDeadline(of state: RequestState, length: Int?) {
        guard configuration.requestHeaderTimeoutSeconds > 0 else { return }
        let allowance = Duration.seconds(Double(length ?? state.bodyLimit) / Double(configuration.minimumUploadBytesPerSecond))
        let deadline = headerDeadline() + allowance
        state.bodyDeadline = deadline
        deadlines.setDeadline(state.connection, deadline)
    }

    /// Keeps a body chunk within the request's limit and, for chunked bodies, the shared budget.
    private func receive(_ chunk: UnsafeRawBufferPointer, into state: RequestState) {
        guard !state.overflowed, state.refusal == nil else { return }
        if let sink = state.sink {
            if state.sunkBytes + chunk.count > state.bodyLimit {
                state.overflowed = true
                sink.discard()
            } else if sink.write(chunk) {
                state.sunkBytes += chunk.count
            } else {
                sink.discard()
                state.refusal = HTTPError(507, code: "insufficient_storage",
                                          message: "The server could not store this upload; nothing of it was kept. Retry later.")
            }
            return
        }
        if state.chunked && state.body.count + chunk.count <= state.bodyLimit {
            guard bodyBudget.reserve(chunk.count) else {
                bodyBudget.release(state.reservedBytes)
                state.reservedBytes = 0
                state.discardBody(answering: .bodyBudgetExhausted)
                return
            }
            state.reservedBytes += chunk.count
        }
        state.append(chunk, limit: state.bodyLimit)
        if state.overflowed {
            bodyBudget.release(state.reservedBytes)
            state.reservedBytes = 0
        }
    }

    /// `method` in upper case; a method already in upper case (as every client sends it) is
    /// returned as it is, without `uppercased()`'s walk through Unicode case mapping.
    static func uppercasedMethod(_ method: String) -> String {
        method.utf8.allSatisfy { !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) } ? method : method.uppercased()
    }

    /// The client's address: the TCP peer, or behind a trusted proxy the forwarded client.
    private func resolvedAddress(peer: String, of connection: OpaquePointer) -> String {
        guard !configuration.trustedProxies.isEmpty else { return peer }
        let forwarded = MHDConnection.headers(of: connection).values(for: "X-Forwarded-For")
        return ClientAddress.resolve(peer: peer, forwardedFor: forwarded, trusted: configuration.trustedProxies)
    }

    private func bodyPlan(_ connection: OpaquePointer) -> BodyPlan {
        if let encoding = MHDConnection.header("Transfer-Encoding", of: connection) {
            let codings = encoding.split(separator: ",").map { $0.trimmingASCIIWhitespace().lowercased() }
            if codings == ["chunked"] { return .chunked }
            if codings.dropLast().contains("chunked") { return .invalidEncoding }
            return .unsupportedEncoding
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
        let connection = state.connection
        // The request is in; from here on the server is the slow party, not the client. (A
        // request without a body had its deadline cleared with its headers: see `begin`.)
        if state.bodyDeadline != nil {
            state.bodyDeadline = nil
            deadlines.setDeadline(connection, nil)
        }
        if let refusal = state.refusal {
            return send(.error(refusal), for: state)
        }
        if state.overflowed {
            return refuseBody(of: state, .payloadTooLarge(limit: state.bodyLimit))
        }
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
            bodySink: state.sink,
            remoteAddress: state.remoteAddress,
            isSecure: state.isSecure
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
        if let route = response.route { state.route = route }
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
        // A streamed body no handler took (refused, or the client went away) leaves nothing behind.
        state.sink?.discard()
        state.sink = nil
        bodyBudget.release(state.reservedBytes)
        state.reservedBytes = 0
        if state.receivesBody {
            state.receivesBody = false
            bodiesInFlight.subtract(1, ordering: .relaxed)
        }
        if configuration.requestHeaderTimeoutSeconds > 0 {
            // Kept alive, the connection owes its next request by then (closed: forgotten anyway).
            deadlines.setDeadline(state.connection, headerDeadline())
        }
        inFlight.subtract(1, ordering: .releasing)
        // libmicrohttpd's own refusals (431, ...) never reach `send`: ask it what it answered.
        let libraryStatus = Int(notes_mhd_http_status(state.connection))
        let status = state.status ?? (libraryStatus > 0 ? libraryStatus : 499)
        observer?.completed(route: state.route, status: status, elapsed: ContinuousClock.now - state.started)
        log(state.logLine(status: status))
    }
}

private extension StringProtocol {
    func trimmingASCIIWhitespace() -> SubSequence {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[startIndex..<startIndex]
        }
        return self[first...last]
    }
}
