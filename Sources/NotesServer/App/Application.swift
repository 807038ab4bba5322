import Foundation
import NotesCore

/// The assembled server: database, stores, routes and the HTTP listener.
///
/// `buildApplication` is what `serve` runs and what tests can build in-process.
final class Application: Sendable {
    let configuration: ServerConfiguration
    let database: DatabaseQueue
    let router: Router
    /// What the HTTP server answers with: the web app's pages, and `router` for the API.
    let responder: SiteResponder
    let notes: NoteStore
    let sessions: SessionStore
    /// Attachment contents, holds and uploads (purged with the tombstones).
    let contents: ContentStore
    /// Wakes held changes requests (the long poll); closed at shutdown to answer them all.
    let changeNotifier: InProcessChangeNotifier
    /// The held changes requests, within their caps.
    let waitingRequests: WaitingRequests
    let log: @Sendable (String) -> Void

    init(configuration: ServerConfiguration, database: DatabaseQueue, log: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        self.database = database
        self.log = log
        let clock = configuration.clock
        let users = UserStore(database: database, clock: clock)
        let sessions = SessionStore(database: database, clock: clock, lifetimes: configuration.lifetimes)
        let changeNotifier = InProcessChangeNotifier()
        let notes = NoteStore(database: database, clock: clock, limits: configuration.limits, notifier: changeNotifier)
        let blobs = FileBlobStore(databasePath: configuration.databasePath)
        let contents = ContentStore(database: database, blobs: blobs, clock: clock, limits: configuration.attachments)
        let waitingRequests = WaitingRequests(caps: .init(perUser: configuration.limits.maxWaitersPerUser ?? 8,
                                                          perAddress: configuration.effectiveMaxWaitersPerAddress,
                                                          total: configuration.effectiveMaxWaiters))
        let rateLimiter = RequestRateLimiter(perMinute: configuration.limits.requestsPerMinute)
        let openBodyLimit = configuration.limits.maxUnauthenticatedRequestBytes ?? Router.defaultOpenBodyLimit
        var router = Router(authenticator: TokenAuthenticator(database: database, clock: clock), rateLimiter: rateLimiter,
                            openBodyLimit: openBodyLimit, log: log)
        // One password pool, one throttle and one token store, shared by the API and the web app.
        let passwords = PasswordWorker()
        let throttle = LoginThrottle(limits: configuration.loginLimits, clock: clock)
        let tokens = PersonalTokenStore(database: database, clock: clock)
        MetaController(limits: configuration.publishedLimits).register(in: &router)
        AuthController(users: users, sessions: sessions, passwords: passwords, throttle: throttle, log: log).register(in: &router)
        SignInController(settings: configuration.signIn, http: ProviderHTTPClient(), database: database, clock: clock,
                         users: users, sessions: sessions, log: log).register(in: &router)
        TokensController(tokens: tokens).register(in: &router)
        NotesController(store: notes).register(in: &router)
        SyncController(store: notes, waiting: waitingRequests, maxWaitSeconds: configuration.limits.maxWaitSeconds ?? 60,
                       log: log).register(in: &router)
        SearchController(store: notes).register(in: &router)
        HistoryController(store: notes, tombstoneRetentionSeconds: configuration.tombstoneRetentionSeconds).register(in: &router)
        let publications = PublicationStore(database: database, clock: clock)
        PublicationsController(store: publications).register(in: &router)
        PublicationPageController(store: publications, notes: notes, contents: contents,
                                  rateLimiter: RequestRateLimiter(perMinute: configuration.publicationRequestsPerMinute)).register(in: &router)
        ContentController(contents: contents).register(in: &router)
        UploadsController(contents: contents, blobs: blobs).register(in: &router)
        AttachmentsController(notes: notes, contents: contents).register(in: &router)
        self.router = router
        let web = WebApp(services: WebServices(users: users, sessions: sessions, notes: notes, tokens: tokens, passwords: passwords,
                                               throttle: throttle, lifetimes: configuration.browserLifetimes,
                                               publications: publications, signIn: configuration.signIn, log: log,
                                               contents: contents, maxRequestBytes: configuration.limits.maxRequestBytes),
                         openBodyLimit: openBodyLimit)
        responder = SiteResponder(api: router, web: web, rateLimiter: rateLimiter)
        self.notes = notes
        self.sessions = sessions
        self.contents = contents
        self.changeNotifier = changeNotifier
        self.waitingRequests = waitingRequests
    }
}

/// Opens (creating and migrating) the database at `path`, making its folder private if new.
/// `readers`: read-only connections beside the writing one (see `DatabaseQueue`); a serving
/// server has one per HTTP thread, an admin command none.
func openDatabase(at path: String, options: Database.Options = .init(), readers: Int = 0) throws -> DatabaseQueue {
    let folder = (path as NSString).deletingLastPathComponent
    if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
    return try DatabaseQueue(path: path, options: options, migrator: ServerSchema.migrator,
                             beforeCommit: ServerSchema.indexQueuedSearchChanges, readers: readers)
}

/// Opens the database at `path` for an admin command that needs one to exist (`user list`,
/// `backup`, ...): a mistyped `--db` must fail, not create and report on an empty database.
/// Only `serve` and `user add` create one.
/// - Throws: `AdminError` "no database at PATH" when no file is there.
func openExistingDatabase(at path: String) throws -> DatabaseQueue {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
        throw AdminError("no database at \(path) (pass the server's --db PATH; only `serve` and `user add` create a database)")
    }
    return try openDatabase(at: path)
}

/// Builds the application for `configuration`: opens and migrates the database, wires the routes.
func buildApplication(_ configuration: ServerConfiguration, log: @escaping @Sendable (String) -> Void) throws -> Application {
    var options = Database.Options()
    options.maxSizeBytes = configuration.maxDatabaseBytes
    // A server acknowledges writes: into a deleted file they would be lost at restart.
    options.refusesWritesWhenFileMoved = true
    let database = try openDatabase(at: configuration.databasePath, options: options, readers: configuration.threadCount)
    return Application(configuration: configuration, database: database, log: log)
}
