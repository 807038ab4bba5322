extension TestServer {
    /// Runs `body` with `count` servers started on one fresh database on `backend`, then stops
    /// every server and drops the database, whether `body` returned or threw.
    /// - Parameter extraArguments: more `serve` flags, the same for every server.
    public static func sharingOneDatabase<T>(_ count: Int, on backend: TestBackend = .current, extraArguments: [String] = [],
                                             _ body: ([TestServer]) async throws -> T) async throws -> T {
        let database = try await TestDatabase.make(on: backend)
        var servers: [TestServer] = []
        let result: Result<T, any Error>
        do {
            for _ in 0..<count { servers.append(try await TestServer(extraArguments: extraArguments, database: database.location)) }
            result = .success(try await body(servers))
        } catch {
            result = .failure(error)
        }
        for server in servers { await server.stop() }
        await database.drop()
        return try result.get()
    }
}
