extension TestServer {
    /// A server on `database` and the same `port` as one just stopped or killed: the port may be
    /// held for a moment after, so a start that fails is tried again, for at most 30 s.
    /// - Parameter extraArguments: more `serve` flags, as the first server had them.
    public static func restarted(database: String, port: Int, extraArguments: [String] = []) async throws -> TestServer {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do {
                return try await TestServer(extraArguments: extraArguments, database: database, port: port)
            } catch TestServerError.exitedEarly where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }
}
