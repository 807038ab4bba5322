import Foundation
import NotesCore

/// WebDAV (RFC 4918, classes 1 and 2) at `/dav/`: every space the caller can read, as a tree of
/// plain files and folders (docs/architecture.md §3.7).
///
/// The same entries as every other door, through the same stores: a PUT is a revision with its
/// author (`NoteStore.put`, `putAttachment`), a MOVE a rename that keeps the id, a DELETE goes
/// to the trash, and each change wakes the long polls. The ETag is the content hash. Requests
/// are signed in by `DAVAuthenticator` (Basic with a personal access token, or Bearer) and held
/// to the same request rate as the API; a read token reads, a write token writes.
struct WebDAVResponder: HTTPResponder {
    let authenticator: DAVAuthenticator
    let spaces: DAVSpaces
    let notes: NoteStore
    let contents: ContentStore
    let locks: DAVLockTable
    let rateLimiter: RequestRateLimiter?
    let log: @Sendable (String) -> Void
    /// Where uploads and long listings wait on disk on their way.
    var temporaryFolder = NSTemporaryDirectory()

    /// The methods every WebDAV path answers, for `Allow` and OPTIONS.
    static let methods = ["OPTIONS", "GET", "HEAD", "PUT", "DELETE", "MKCOL", "PROPFIND", "PROPPATCH", "COPY", "MOVE", "LOCK", "UNLOCK"]

    /// Whether `path` is WebDAV's.
    static func owns(path: String) -> Bool { DAVLocation(requestPath: path) != nil }

    func respond(to request: HTTPRequest) -> HTTPOutcome {
        do {
            return .now(try handle(request))
        } catch {
            return .now(DAVResponse.error(HTTPError.answer(for: error, requestID: request.id, log: log)))
        }
    }

    func refusal(_ error: HTTPError, for head: HTTPRequest) -> HTTPResponse {
        DAVResponse.error(error)
    }

    /// A request with its caller, where it points and the space there (nil at `/dav/`).
    struct Call {
        let request: HTTPRequest
        let principal: Principal
        let location: DAVLocation
        let space: DAVSpace?

        var userID: Int64 { space?.userID ?? principal.userID }

        /// The space, for a method that needs one.
        /// - Throws: 403 at `/dav/` itself, which only lists the spaces.
        func requireSpace() throws(HTTPError) -> DAVSpace {
            guard let space else { throw HTTPError(403, code: "read_only_root", message: "/dav/ only lists the spaces; work inside one.") }
            return space
        }

        /// Refuses a write by a read-only token or by a member who may only read.
        /// - Throws: 403.
        func requireWrite() throws(HTTPError) -> DAVSpace {
            let space = try requireSpace()
            guard principal.scope == .write else {
                throw HTTPError(403, code: "insufficient_scope", message: "This token may only read; use a token with the write scope.")
            }
            guard space.writable else { throw HTTPError(403, code: "read_only_space", message: "You may read this space but not change it.") }
            return space
        }
    }

    func call(for request: HTTPRequest) throws -> Call {
        guard let location = DAVLocation(requestPath: request.path) else { throw HTTPError.notFound() }
        let principal = try authenticator.authenticate(request)
        guard let name = location.space else { return Call(request: request, principal: principal, location: location, space: nil) }
        guard let space = try spaces.named(name, for: principal) else {
            throw HTTPError.notFound("There is no space called \(name) that you can read.")
        }
        return Call(request: request, principal: principal, location: location, space: space)
    }

    /// Runs `body` as one write of the space's entries (which wakes its long polls), with the
    /// caller recorded as the author of every revision it appends.
    func writeEntries<T>(_ call: Call, _ body: (any SQLConnection) throws -> T) throws -> T {
        try notes.write(for: call.userID) { db in
            try NoteStore.recordingAuthor(call.principal.userID, of: call.userID, in: db) { try body(db) }
        }
    }

    private func handle(_ request: HTTPRequest) throws -> HTTPResponse {
        try rateLimiter?.admit(request.remoteAddress)
        // Clients ask before they sign in what the server speaks (Windows, Finder): nothing here
        // depends on who asks.
        if request.method == "OPTIONS" { return options() }
        let call = try call(for: request)
        switch request.method {
        case "GET", "HEAD": return try get(call)
        case "PROPFIND": return try propfind(call)
        case "PUT": return try put(call)
        case "DELETE": return try delete(call)
        case "MKCOL": return try mkcol(call)
        case "PROPPATCH": return try proppatch(call)
        case "COPY": return try copyOrMove(call, move: false)
        case "MOVE": return try copyOrMove(call, move: true)
        case "LOCK": return try lock(call)
        case "UNLOCK": return try unlock(call)
        default: throw HTTPError.methodNotAllowed(allowed: Self.methods)
        }
    }

    private func options() -> HTTPResponse {
        DAVResponse.empty(200, headers: [
            "DAV": "1, 2", "MS-Author-Via": "DAV", "Allow": Self.methods.joined(separator: ", "), "Accept-Ranges": "bytes",
        ])
    }
}
