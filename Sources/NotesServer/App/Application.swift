import Foundation
import NotesCore

/// The assembled server: database, stores, routes and the HTTP listener.
///
/// `buildApplication` is what `serve` runs and what tests can build in-process.
final class Application: Sendable {
    let configuration: ServerConfiguration
    let database: ServerDatabase
    let router: Router
    /// What the HTTP server answers with: the web app's pages, and `router` for the API.
    let responder: SiteResponder
    let notes: NoteStore
    let sessions: SessionStore
    /// Attachment contents, holds and uploads (purged with the tombstones).
    let contents: ContentStore
    /// Where attachment bytes live (checked by the readiness probe).
    let blobs: any BlobStore
    /// The sign-in throttle the API and the web app share (its counts feed the metrics).
    let throttle: LoginThrottle
    /// Wakes held changes requests (the long poll); closed at shutdown to answer them all.
    let changeNotifier: any ChangeNotifier
    /// The held changes requests, within their caps.
    let waitingRequests: WaitingRequests
    /// Shares the request-rate allowances with the other servers on a PostgreSQL database.
    let rateLedger: SharedRateLedger?
    /// Analyzes the note tables while they are young, on a PostgreSQL database.
    let statistics: YoungTableStatistics?
    /// Indexes written notes for search after their writes (`SearchIndexRounds`).
    let searchIndexer: (any SearchIndexer)?
    let log: @Sendable (String) -> Void

    /// Token rows and notes kept for `GET /v1/notes/{id}`; nil with `--no-cache`.
    let tokenChecks: TokenCheckCache?
    let noteCache: NoteCache?

    /// `noteCache` must be the one `changeNotifier` forgets in (see `buildApplication`).
    init(configuration: ServerConfiguration, database: ServerDatabase, blobs: any BlobStore, changeNotifier: any ChangeNotifier,
         tokenChecks: TokenCheckCache? = nil, noteCache: NoteCache? = nil, log: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        self.database = database
        self.log = log
        let clock = configuration.clock
        self.tokenChecks = tokenChecks
        self.noteCache = noteCache
        let users = UserStore(database: database, clock: clock, tokenChecks: tokenChecks)
        let sessions = SessionStore(database: database, clock: clock, lifetimes: configuration.lifetimes, tokenChecks: tokenChecks)
        let notes = NoteStore(database: database, clock: clock, limits: configuration.limits, notifier: changeNotifier,
                              rendering: NoteRendering(flavour: configuration.markdownFlavour))
        let contents = ContentStore(database: database, blobs: blobs, clock: clock, limits: configuration.attachments)
        let waitingRequests = WaitingRequests(caps: .init(perUser: configuration.limits.maxWaitersPerUser ?? 8,
                                                          perAddress: configuration.effectiveMaxWaitersPerAddress,
                                                          total: configuration.effectiveMaxWaiters))
        let rateLimiter = RequestRateLimiter(perMinute: configuration.limits.requestsPerMinute)
        let openBodyLimit = configuration.limits.maxUnauthenticatedRequestBytes ?? Router.defaultOpenBodyLimit
        var router = Router(authenticator: TokenAuthenticator(database: database, clock: clock, tokenChecks: tokenChecks, notes: noteCache),
                            rateLimiter: rateLimiter,
                            openBodyLimit: openBodyLimit, log: log)
        // One password pool, one throttle and one token store, shared by the API and the web app.
        let passwords = PasswordWorker()
        let throttle = LoginThrottle(limits: configuration.loginLimits, clock: clock, shared: database.sharedByServers, unlocks: database)
        let tokens = PersonalTokenStore(database: database, clock: clock, tokenChecks: tokenChecks)
        MetaController(limits: configuration.publishedLimits, contentStore: ContentStoreProbe.of(blobs)).register(in: &router)
        ProbeController(database: database, blobs: blobs, log: log).register(in: &router)
        AuthController(users: users, sessions: sessions, passwords: passwords, throttle: throttle, log: log).register(in: &router)
        SignInController(settings: configuration.signIn, http: ProviderHTTPClient(), database: database, clock: clock,
                         users: users, sessions: sessions, log: log).register(in: &router)
        TokensController(tokens: tokens).register(in: &router)
        // One pool for every large rendering (API and published pages), each user's share counted once.
        let renderWorker = RenderWorker()
        NotesController(store: notes, renderWorker: renderWorker, log: log).register(in: &router)
        SyncController(store: notes, waiting: waitingRequests, maxWaitSeconds: configuration.limits.maxWaitSeconds ?? 60,
                       log: log).register(in: &router)
        SearchController(store: notes).register(in: &router)
        HistoryController(store: notes, tombstoneRetentionSeconds: configuration.tombstoneRetentionSeconds).register(in: &router)
        let publications = PublicationStore(database: database, clock: clock)
        PublicationsController(store: publications).register(in: &router)
        let publicationRateLimiter = RequestRateLimiter(perMinute: configuration.publicationRequestsPerMinute)
        PublicationPageController(store: publications, notes: notes, contents: contents,
                                  rateLimiter: publicationRateLimiter, renderWorker: renderWorker).register(in: &router)
        if case .postgres(let pool) = database {
            rateLedger = SharedRateLedger(pool: pool, limiters: ["requests": rateLimiter, "publications": publicationRateLimiter],
                                          clock: clock, log: log)
            statistics = YoungTableStatistics(pool: pool, log: log)
            searchIndexer = PostgresSearchIndexer(pool: pool, log: log)
        } else {
            rateLedger = nil
            statistics = nil
            searchIndexer = database.sqliteQueue.map { SQLiteSearchIndexer(queue: $0, clock: clock, log: log) }
        }
        ContentController(contents: contents).register(in: &router)
        UploadsController(contents: contents, blobs: blobs).register(in: &router)
        AttachmentsController(notes: notes, contents: contents).register(in: &router)
        let spaceStore = SpaceStore(database: database, clock: clock, notifier: changeNotifier)
        SpacesController(spaces: spaceStore).register(in: &router)
        router.addSpaceRoutes(SpaceAccess(database: database))
        self.router = router
        let web = WebApp(services: WebServices(users: users, sessions: sessions, notes: notes, tokens: tokens, passwords: passwords,
                                               throttle: throttle, lifetimes: configuration.browserLifetimes,
                                               publications: publications, signIn: configuration.signIn, log: log,
                                               contents: contents, maxRequestBytes: configuration.limits.maxRequestBytes,
                                               renderWorker: renderWorker),
                         openBodyLimit: openBodyLimit)
        let dav = WebDAVResponder(authenticator: DAVAuthenticator(tokens: router.authenticator, throttle: throttle), notes: notes,
                                  contents: contents, locks: DAVLockTable(clock: clock), rateLimiter: rateLimiter, log: log)
        responder = SiteResponder(api: router, web: web, rateLimiter: rateLimiter, dav: dav)
        self.notes = notes
        self.sessions = sessions
        self.contents = contents
        self.blobs = blobs
        self.throttle = throttle
        self.changeNotifier = changeNotifier
        self.waitingRequests = waitingRequests
    }
}

extension Application {
    /// Stops what the application runs beside its requests (the request-rate exchange, the
    /// statistics watch, the search indexer, the change listener and its wake-ups) and closes the
    /// database. After the HTTP server stopped.
    func close() throws {
        rateLedger?.stop()
        statistics?.stop()
        searchIndexer?.stop()
        changeNotifier.close()
        try database.close()
    }
}

/// Opens (creating and migrating) the database at `path`.
///
/// The database's own file is created when missing; missing folders above it only with
/// `createsFolders` (`--create-dirs`, or the default data path), made private: a typo in the
/// folder of `--db` is refused rather than served from an empty database in a new tree.
/// `readers`: read-only connections beside the writing one (see `DatabaseQueue`); a serving
/// server has one per HTTP thread, an admin command none.
/// - Throws: `DatabaseOpenError`, one sentence naming the file and the likely cause.
func openDatabase(at path: String, options: Database.Options = .init(), readers: Int = 0,
                  createsFolders: Bool = false) throws -> DatabaseQueue {
    let folder = (path as NSString).deletingLastPathComponent
    if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
        guard createsFolders else { throw DatabaseOpenError.missingFolder(folder, of: path) }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw DatabaseOpenError("cannot create the folder \(folder) for the database \(path)")
        }
    }
    do {
        return try DatabaseQueue(path: path, options: options, migrator: ServerSchema.migrator, readers: readers)
    } catch let error as DatabaseError {
        throw DatabaseOpenError(error, path: path)
    }
}

/// Opens the database `--db` names for an admin command, migrated to this program's schema.
///
/// Only `serve` and `user add` pass `create`: any other command needs a database that exists,
/// so a mistyped `--db` fails instead of reporting on a new empty one. A PostgreSQL database
/// "exists" once it holds the Notes schema; an empty one is created into by `create` only.
/// - Throws: `AdminError` "no database at ..." (the URL shown without its password).
func openServerDatabase(_ value: String, create: Bool = false, createsFolders: Bool = false) throws -> ServerDatabase {
    switch try DatabaseLocation(value) {
    case .sqlite(let path):
        var isDirectory: ObjCBool = false
        guard create || (FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue) else {
            throw AdminError("no database at \(path) (pass the server's --db PATH; only `serve` and `user add` create a database)")
        }
        return .sqlite(try openDatabase(at: path, createsFolders: createsFolders))
    case .postgres(let url):
        return .postgres(try openPostgres(url, size: 1, applicationName: "notes-server admin", create: create))
    }
}

/// A pool on the PostgreSQL database at `url`, its schema migrated to this program's (one server
/// at a time: `PostgresSchema.migrate`). Without `create`, an empty database is refused.
func openPostgres(_ url: PostgresURL, size: Int, applicationName: String = "notes-server", create: Bool) throws -> PostgresPool {
    let pool = try PostgresPool(url: url, size: size, applicationName: applicationName)
    do {
        try pool.withConnection { connection in
            let version = try PostgresSchema.version(connection)
            guard create || version > 0 else {
                throw AdminError("no Notes database at \(url) (its schema is empty; `serve` or `user add` creates it)")
            }
            try PostgresSchema.migrate(connection)
        }
    } catch {
        pool.close()
        throw error
    }
    return pool
}

/// Builds the application for `configuration`: opens and migrates the database, wires the routes.
func buildApplication(_ configuration: ServerConfiguration, log: @escaping @Sendable (String) -> Void) throws -> Application {
    // The read caches (`--no-cache`: none); the note cache forgets through the change notifier.
    let notes = configuration.cachesReads ? NoteCache() : nil
    let tokenChecks = configuration.cachesReads ? TokenCheckCache() : nil
    switch try DatabaseLocation(configuration.databasePath) {
    case .sqlite(let path):
        var options = Database.Options()
        options.maxSizeBytes = configuration.maxDatabaseBytes
        // A server acknowledges writes: into a deleted file they would be lost at restart.
        options.refusesWritesWhenFileMoved = true
        try SharedIndexCheck.verify(databasePath: path)
        let database = try openDatabase(at: path, options: options, readers: configuration.threadCount,
                                        createsFolders: configuration.createsDatabaseFolders)
        let blobs = configuration.contentStore.blobStore(beside: FileBlobStore(databasePath: path, clock: configuration.clock),
                                                         timeouts: configuration.objectStorageTimeouts)
        return Application(configuration: configuration, database: .sqlite(database), blobs: blobs,
                           changeNotifier: InProcessChangeNotifier(notes: notes), tokenChecks: tokenChecks, noteCache: notes, log: log)
    case .postgres(let url):
        // One connection per HTTP thread: a handler holds one for its request, never two.
        let pool = try openPostgres(configuration.contentStore.isS3 ? url.withContentStoreSetting("s3") : url,
                                    size: configuration.databasePoolSize ?? max(1, configuration.threadCount), create: true)
        let notifier = PostgresChangeNotifier(url: url, pool: pool, notes: notes, log: log)
        return Application(configuration: configuration, database: .postgres(pool),
                           blobs: configuration.contentStore.blobStore(beside: PostgresBlobStore(pool: pool),
                                                                       timeouts: configuration.objectStorageTimeouts),
                           changeNotifier: notifier, tokenChecks: tokenChecks, noteCache: notes, log: log)
    }
}
