import CMicroHTTPD
import Dispatch
import Foundation

extension HTTPServer {
    /// Binds and starts serving; returns the actual bound port.
    ///
    /// - Throws: `HTTPServerError`, e.g. `cannot listen on 127.0.0.1:8080: address in use`.
    func start() throws -> UInt16 {
        try lifecycle.withLock { state throws(HTTPServerError) in
            guard case .idle = state else {
                throw HTTPServerError(.notStartable, "the HTTP server was already started; create a new one")
            }
            state = .starting
        }
        do {
            let handle = try launchDaemon()
            lifecycle.withLock { $0 = .running(handle) }
            return handle.port
        } catch {
            lifecycle.withLock { $0 = .idle }
            throw error
        }
    }

    private func launchDaemon() throws(HTTPServerError) -> DaemonHandle {
        let config = configuration
        try Self.validate(config)
        let address = try ListenAddress(host: config.host, port: config.port)
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if address.isIPv6 { flags |= MHD_USE_DUAL_STACK.rawValue }
        let secrets = try Self.tlsSecrets(config)
        if !secrets.isEmpty { flags |= MHD_USE_TLS.rawValue }

        let sockaddrCopy = address.makeSockaddrCopy()
        defer { sockaddrCopy.deallocate() }
        let context = Unmanaged.passRetained(self)
        let completed: MHD_RequestCompletedCallback = { cls, _, conCls, _ in
            guard let cls, let conCls, let raw = conCls.pointee else { return }
            conCls.pointee = nil
            let state = Unmanaged<RequestState>.fromOpaque(raw).takeRetainedValue()
            Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().requestCompleted(state)
        }
        let connectionNotice: MHD_NotifyConnectionCallback = { cls, connection, _, toe in
            guard let cls, let connection else { return }
            Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().connectionChanged(connection, opened: toe == .CONNECTION_NOTIFY_STARTED)
        }
        // Called with the raw request line's URI before libmicrohttpd parses the query; what it
        // returns becomes the request's `*con_cls` (see `HTTPServer.requestLineArrived`).
        let requestLine: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = { cls, uri, connection in
            guard let cls, let connection else { return nil }
            return Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().requestLineArrived(uri: uri, connection: connection)
        }
        Self.raiseDescriptorLimit(toServe: config.connectionLimit)
        var items: [MHD_OptionItem] = [
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: config.connectionLimit, ptr_value: nil),
            MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: config.perAddressConnectionLimit, ptr_value: nil),
            .callback(.NOTIFY_CONNECTION, connectionNotice, cls: context.toOpaque()),
            .callback(.URI_LOG_CALLBACK, requestLine, cls: context.toOpaque()),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: config.connectionTimeoutSeconds, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: config.connectionMemoryLimit, ptr_value: nil),
            .callback(.NOTIFY_COMPLETED, completed, cls: context.toOpaque()),
            MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: sockaddrCopy),
        ]
        if config.threadCount > 1 {
            items.append(MHD_OptionItem(option: .THREAD_POOL_SIZE, value: config.threadCount, ptr_value: nil))
        }
        if secrets.count == 2 {
            items.append(MHD_OptionItem(option: .HTTPS_MEM_CERT, value: 0, ptr_value: UnsafeMutableRawPointer(secrets[0])))
            items.append(MHD_OptionItem(option: .HTTPS_MEM_KEY, value: 0, ptr_value: UnsafeMutableRawPointer(secrets[1])))
        }
        items.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))

        let started: OpaquePointer? = items.withUnsafeMutableBufferPointer { buffer in
            // MHD_start_daemon is C-variadic; the _va form with one MHD_OPTION_ARRAY is importable.
            withVaList([MHD_OPTION.ARRAY.rawValue, buffer.baseAddress!, MHD_OPTION.END.rawValue]) { arguments in
                MHD_start_daemon_va(flags, address.port, nil, nil, { cls, connection, url, method, _, upload, size, conCls in
                    guard let cls, let connection, let size, let conCls else { return .NO }
                    return Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
                        .handle(connection: connection, url: url, method: method, upload: upload, uploadSize: size, context: conCls)
                }, context.toOpaque(), arguments)
            }
        }
        guard let daemon = started else {
            context.release()
            secrets.forEach { free($0) }
            throw Self.diagnoseStartFailure(address: address, usesTLS: !secrets.isEmpty, config: config)
        }
        guard let port = MHDInfo.boundPort(of: daemon) ?? (address.port == 0 ? nil : address.port) else {
            MHD_stop_daemon(daemon)
            context.release()
            secrets.forEach { free($0) }
            throw HTTPServerError(.startFailed, "started on \(address.display) but could not read back the bound port")
        }
        return DaemonHandle(daemon: daemon, context: context, secrets: secrets, port: port, sweeper: startSweeping())
    }

    /// Every second, cuts connections whose request is past its deadline (see `ConnectionDeadlines`).
    private func startSweeping() -> any DispatchSourceTimer {
        let deadlines = self.deadlines
        let log = self.log
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1), leeway: .milliseconds(200))
        timer.setEventHandler {
            let cut = deadlines.sweep(now: .now)
            if cut > 0 { log("closed \(cut) connection(s) that did not send their request in time") }
        }
        timer.resume()
        return timer
    }

    /// Raises the soft open-file limit towards the hard one, so `connectionLimit` connections
    /// (plus the database and a margin) can be open; a lower hard limit is left as it is.
    private static func raiseDescriptorLimit(toServe connections: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let wanted = rlim_t(connections + 128)
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = min(wanted, limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    private static func validate(_ config: Configuration) throws(HTTPServerError) {
        func require(_ condition: Bool, _ message: String) throws(HTTPServerError) {
            if !condition { throw HTTPServerError(.invalidConfiguration, message) }
        }
        try require(config.connectionLimit > 0, "the connection limit must be positive")
        try require(config.perAddressConnectionLimit >= 0, "the per-address connection limit cannot be negative")
        try require(config.requestHeaderTimeoutSeconds >= 0, "the request timeout cannot be negative")
        try require(config.minimumUploadBytesPerSecond > 0, "the minimum upload rate must be positive")
        try require(config.bodyBudgetBytes >= config.maxBodyBytes, "the body budget must hold at least one largest body")
        try require(config.maxQueryParameters > 0, "the query parameter limit must be positive")
        try require(config.connectionTimeoutSeconds >= 0, "the connection timeout cannot be negative")
        try require(config.connectionMemoryLimit >= 4096, "the connection memory limit must be at least 4096 bytes")
        try require(config.maxBodyBytes >= 0, "the request body limit cannot be negative")
        try require((1...1024).contains(config.threadCount), "the thread count must be between 1 and 1024")
        try require(config.drainTimeoutSeconds >= 0, "the drain timeout cannot be negative")
    }

    /// Copies the PEM strings to C memory, or returns none when TLS is off.
    private static func tlsSecrets(_ config: Configuration) throws(HTTPServerError) -> [UnsafeMutablePointer<CChar>] {
        switch (config.tlsCertificatePEM, config.tlsKeyPEM) {
        case (nil, nil):
            return []
        case let (certificate?, key?):
            guard MHD_is_feature_supported(.FEATURE_TLS) == .YES else {
                throw HTTPServerError(.tlsUnavailable, "TLS was requested but this libmicrohttpd was built without TLS support; use a reverse proxy instead")
            }
            guard let certificateCopy = strdup(certificate) else {
                throw HTTPServerError(.startFailed, "out of memory while loading the TLS certificate")
            }
            guard let keyCopy = strdup(key) else {
                free(certificateCopy)
                throw HTTPServerError(.startFailed, "out of memory while loading the TLS key")
            }
            return [certificateCopy, keyCopy]
        default:
            throw HTTPServerError(.tlsUnavailable, "TLS needs both a certificate and a private key")
        }
    }

    /// Recovers a reason for a failed start, which libmicrohttpd reports only as NULL.
    private static func diagnoseStartFailure(address: ListenAddress, usesTLS: Bool, config: Configuration) -> HTTPServerError {
        if let code = address.probeBindError() {
            return .bindFailure(address: address.display, errno: code)
        }
        if usesTLS {
            return HTTPServerError(.tlsRejected, "cannot listen on \(address.display): the TLS certificate or key was rejected (both must be PEM and match)")
        }
        return HTTPServerError(.startFailed, "cannot listen on \(address.display): libmicrohttpd refused to start (threads: \(config.threadCount), connection limit: \(config.connectionLimit))")
    }
}

extension MHD_OptionItem {
    /// A two-pointer option: the C function `callback` in `value` (as intptr_t) and the `cls`
    /// it is called with in `ptr_value`.
    fileprivate static func callback<Function>(_ option: MHD_OPTION, _ callback: Function, cls: UnsafeMutableRawPointer) -> MHD_OptionItem {
        MHD_OptionItem(option: option, value: Int(bitPattern: unsafeBitCast(callback, to: UnsafeRawPointer.self)), ptr_value: cls)
    }
}
