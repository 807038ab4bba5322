import NotesCore

/// Turns an `Authorization: Bearer …` header into a `Principal`, or the RFC 6750 answer.
///
/// Only SHA-256 digests of tokens are stored; the presented secret is hashed and looked up by
/// digest, then the digests are compared in constant time. Error descriptions say whether a
/// token is expired, revoked or unknown, never anything about the secret's content.
struct TokenAuthenticator: Sendable {
    let tokens: BearerTokenStore
    let clock: ServerClock
    /// Token rows `GET /v1/notes/{id}` read lately (`nil`: `--no-cache`). Other routes read the
    /// row each time: they go to the database for their own work anyway.
    let tokenChecks: TokenCheckCache?
    /// Notes `GET /v1/notes/{id}` read lately (`nil`: `--no-cache`).
    let notes: NoteCache?

    init(database: ServerDatabase, clock: ServerClock, tokenChecks: TokenCheckCache? = nil, notes: NoteCache? = nil) {
        tokens = BearerTokenStore(database: database)
        self.clock = clock
        self.tokenChecks = tokenChecks
        self.notes = notes
    }

    /// The caller behind `request`'s bearer token.
    /// - Throws: `HTTPError` 401 without an error code when no bearer credentials were sent,
    ///   401 `invalid_token` for a token that cannot be used, 400 `invalid_request` for a
    ///   malformed `Authorization` header (RFC 6750 §3.1).
    func authenticate(_ request: HTTPRequest) throws -> Principal {
        let digest = try Self.digest(in: request)
        let now = clock.now()
        return try admit(try tokens.find(digest: digest), digest: digest, now: now)
    }

    /// The caller behind a bearer secret that arrived other than in a Bearer header (WebDAV's
    /// Basic sign-in, where the token is the password), checked exactly as `authenticate(_:)`.
    /// - Throws: as `authenticate(_:)`.
    func authenticate(secret: String) throws -> Principal {
        let digest = try Self.digest(of: secret)
        return try admit(try tokens.find(digest: digest), digest: digest, now: clock.now())
    }

    /// The caller behind `request`'s bearer token and that caller's note `noteID` (`nil` when
    /// they have none), for `GET /v1/notes/{id}`. The token is checked exactly as
    /// `authenticate(_:)` checks it, before the note is given out.
    ///
    /// A token row read less than a second ago and a note kept by the note cache answer without
    /// the database. Otherwise one statement reads both, and what it read is kept for next time
    /// (unless a change was heard while it read: see the caches' marks).
    /// - Throws: as `authenticate(_:)`.
    ///
    /// `answer` is the note's encoded JSON answer when it came from the note cache (encoded by
    /// the read that found it kept without one, and kept with it from then on): nil without the
    /// cache, and for a read that went to the database.
    func authenticate(_ request: HTTPRequest, readingNote noteID: NoteID) throws
        -> (principal: Principal, note: NoteRecord?, answer: NoteCache.Answer?) {
        let digest = try Self.digest(in: request)
        let now = clock.now()
        if let token = tokenChecks?.token(digest: digest), let notes, let kept = notes.kept(noteID, of: token.account) {
            let principal = try admit(token, digest: digest, now: now)
            return (principal, kept.note, kept.answer ?? notes.attachAnswer(to: kept.note, of: token.account))
        }
        let tokenMark = tokenChecks?.mark(), noteMark = notes?.mark()
        let found = try tokens.find(digest: digest, withNote: noteID)
        if let found, let tokenMark { tokenChecks?.keep(found.token, readAfter: tokenMark) }
        let principal = try admit(found?.token, digest: digest, now: now)
        if let token = found?.token, let note = found?.note, let noteMark {
            notes?.keep(note, of: token.account, readAfter: noteMark)
        }
        return (principal, found?.note, nil)
    }

    /// The digest of `request`'s bearer secret, once the secret is one a route may accept.
    private static func digest(in request: HTTPRequest) throws -> [UInt8] {
        try digest(of: try bearerSecret(in: request.headers))
    }

    private static func digest(of secret: String) throws -> [UInt8] {
        guard let kind = TokenKind.of(secret) else { throw HTTPError.invalidToken("is malformed") }
        guard kind != .refresh else { throw HTTPError.invalidToken("is a refresh token, which only POST /v1/auth/refresh accepts") }
        return TokenKind.digest(secret)
    }

    /// The checks every bearer token passes, on the stored `token` found under `digest` (`nil`:
    /// none), then its use recorded as `BearerTokenStore.recordUse` says.
    private func admit(_ token: BearerTokenRecord?, digest: [UInt8], now: Int64) throws -> Principal {
        guard let token, ConstantTime.equal(token.hash, digest) else { throw HTTPError.invalidToken("is unknown") }
        if token.revoked || token.sessionRevoked { throw HTTPError.invalidToken("was revoked") }
        if token.userDisabled { throw HTTPError.invalidToken("belongs to a disabled account") }
        if let expiresAt = token.expiresAt, expiresAt <= now { throw HTTPError.invalidToken("expired") }
        do {
            // A kept row learns the use it recorded, or every request for a second would write it.
            if try tokens.recordUse(of: token, now: now) { tokenChecks?.recordedUse(token.used(at: now)) }
        } catch let error as DatabaseError where error.isStorageFailure {
            // Only bookkeeping: a full or read-only disk must not stop reads. The time stays
            // stale, so a request after the storage recovers records it; writes fail loudly.
        }
        return Principal(userID: token.userID, username: token.username, scope: token.scope, sessionID: token.sessionID, tokenID: token.id,
                         device: token.device, tokenExpiresAt: token.expiresAt)
    }

    /// The bearer secret in `headers`, following RFC 6750 §2.1 and §3.1: another scheme (or none)
    /// is "no credentials"; a Bearer header without exactly one `b64token`, or several
    /// `Authorization` headers, is a malformed request.
    ///
    /// The header is read as space-separated words (runs of spaces count as one): the scheme,
    /// then the token, then nothing. Read on the UTF-8 bytes in place, since it runs for every
    /// authenticated request: no word list, no lowercased copy of the scheme.
    static func bearerSecret(in headers: HTTPHeaders) throws(HTTPError) -> String {
        guard var header = headers["Authorization"] else { throw HTTPError.unauthenticated() }
        guard headers.count(of: "Authorization") == 1 else { throw HTTPError.invalidRequest("Send one Authorization header, not several.") }
        let reading: BearerReading = header.withUTF8 { bytes in
            let space = UInt8(ascii: " ")
            func skipSpaces(from index: Int) -> Int {
                var index = index
                while index < bytes.count && bytes[index] == space { index += 1 }
                return index
            }
            func wordEnd(from index: Int) -> Int {
                var index = index
                while index < bytes.count && bytes[index] != space { index += 1 }
                return index
            }
            let schemeStart = skipSpaces(from: 0)
            let schemeEnd = wordEnd(from: schemeStart)
            guard isBearer(UnsafeBufferPointer(rebasing: bytes[schemeStart..<schemeEnd])) else { return .otherScheme }
            let tokenStart = skipSpaces(from: schemeEnd)
            let tokenEnd = wordEnd(from: tokenStart)
            let token = UnsafeBufferPointer(rebasing: bytes[tokenStart..<tokenEnd])
            guard skipSpaces(from: tokenEnd) == bytes.count, isB64Token(token) else { return .malformed }
            return .token(String(decoding: token, as: UTF8.self))
        }
        switch reading {
        case .otherScheme: throw HTTPError.unauthenticated()
        case .malformed: throw HTTPError.invalidRequest("The Authorization header must be `Bearer <token>`.")
        case .token(let secret): return secret
        }
    }

    /// What an `Authorization` header holds, read as `bearerSecret` reads it.
    private enum BearerReading {
        /// No scheme, or one other than Bearer: no credentials.
        case otherScheme
        /// Bearer, but not followed by exactly one `b64token`.
        case malformed
        case token(String)
    }

    /// Whether `word` is `bearer` in any letter case (RFC 9110 §11.1: schemes are case-insensitive).
    private static func isBearer(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        word.count == 6 && zip(word, "bearer".utf8).allSatisfy { ($0 | 0x20) == $1 }
    }

    /// RFC 6750 §2.1 `b64token`: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
    private static func isB64Token(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var end = text.count
        while end > 0 && text[end - 1] == UInt8(ascii: "=") { end -= 1 }
        guard end > 0 else { return false }
        for byte in text[..<end] {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                continue
            default:
                return false
            }
        }
        return true
    }
}
