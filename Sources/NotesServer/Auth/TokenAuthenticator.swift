import NotesCore

/// Turns an `Authorization: Bearer …` header into a `Principal`, or the RFC 6750 answer.
///
/// Only SHA-256 digests of tokens are stored; the presented secret is hashed and looked up by
/// digest, then the digests are compared in constant time. Error descriptions say whether a
/// token is expired, revoked or unknown, never anything about the secret's content.
struct TokenAuthenticator: Sendable {
    let database: DatabaseQueue
    let clock: ServerClock

    /// How stale a recorded "last used" time may get before a request writes a new one. Writing
    /// on every request would turn each authenticated read into a write.
    static let lastUseResolutionMilliseconds: Int64 = 60_000

    /// The caller behind `request`'s bearer token.
    /// - Throws: `HTTPError` 401 without an error code when no bearer credentials were sent,
    ///   401 `invalid_token` for a token that cannot be used, 400 `invalid_request` for a
    ///   malformed `Authorization` header (RFC 6750 §3.1).
    func authenticate(_ request: HTTPRequest) throws -> Principal {
        let secret = try Self.bearerSecret(in: request.headers)
        guard let kind = TokenKind.of(secret) else { throw HTTPError.invalidToken("is malformed") }
        guard kind != .refresh else { throw HTTPError.invalidToken("is a refresh token, which only POST /v1/auth/refresh accepts") }
        let digest = TokenKind.digest(secret)
        let now = clock.now()
        let found = try database.read { db in
            try db.first("""
                SELECT t.hash, t.id, t.scope, t.expires_at, t.revoked_at, t.session_id, s.revoked_at, u.id, u.username, u.disabled,
                       t.last_used_at, s.last_used_at
                FROM tokens t JOIN users u ON u.id = t.user_id LEFT JOIN sessions s ON s.id = t.session_id
                WHERE t.hash = ?
                """, [digest]) { row in
                (hash: row.bytes(0), id: row.string(1), scope: row.string(2),
                 expiresAt: row.isNull(3) ? nil : row.int64(3), revoked: !row.isNull(4),
                 sessionID: row.isNull(5) ? nil : row.int64(5), sessionRevoked: !row.isNull(6),
                 userID: row.int64(7), username: row.string(8), disabled: row.bool(9),
                 tokenUsedAt: row.isNull(10) ? nil : row.int64(10), sessionUsedAt: row.isNull(11) ? nil : row.int64(11))
            }
        }
        guard let token = found, ConstantTime.equal(token.hash, digest) else { throw HTTPError.invalidToken("is unknown") }
        if token.revoked || token.sessionRevoked { throw HTTPError.invalidToken("was revoked") }
        if token.disabled { throw HTTPError.invalidToken("belongs to a disabled account") }
        if let expiresAt = token.expiresAt, expiresAt <= now { throw HTTPError.invalidToken("expired") }
        do {
            try recordUse(tokenID: token.id, tokenUsedAt: token.tokenUsedAt, sessionID: token.sessionID,
                          sessionUsedAt: token.sessionUsedAt, now: now)
        } catch let error as DatabaseError where error.isStorageFailure {
            // Only bookkeeping: a full or read-only disk must not stop reads. The time stays
            // stale, so a request after the storage recovers records it; writes fail loudly.
        }
        return Principal(userID: token.userID, username: token.username, scope: TokenScope(rawValue: token.scope) ?? .read,
                         sessionID: token.sessionID, tokenID: token.id)
    }

    /// The bearer secret in `headers`, following RFC 6750 §2.1 and §3.1: another scheme (or none)
    /// is "no credentials"; a Bearer header without exactly one `b64token`, or several
    /// `Authorization` headers, is a malformed request.
    static func bearerSecret(in headers: HTTPHeaders) throws(HTTPError) -> String {
        let values = headers.values(for: "Authorization")
        guard let header = values.first else { throw HTTPError.unauthenticated() }
        guard values.count == 1 else { throw HTTPError.invalidRequest("Send one Authorization header, not several.") }
        let parts = header.split(separator: " ", omittingEmptySubsequences: true)
        guard let scheme = parts.first, scheme.lowercased() == "bearer" else { throw HTTPError.unauthenticated() }
        guard parts.count == 2, isB64Token(parts[1]) else {
            throw HTTPError.invalidRequest("The Authorization header must be `Bearer <token>`.")
        }
        return String(parts[1])
    }

    /// RFC 6750 §2.1 `b64token`: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
    private static func isB64Token(_ text: Substring) -> Bool {
        let body = text.utf8.reversed().drop { $0 == UInt8(ascii: "=") }
        return !body.isEmpty && body.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || "-._~+/".utf8.contains(byte)
        }
    }

    /// Records when a personal token, or the session of an access token, was last used, at most
    /// once a minute, so reads stay reads; a session's idle lifetime counts from this.
    private func recordUse(tokenID: String, tokenUsedAt: Int64?, sessionID: Int64?, sessionUsedAt: Int64?, now: Int64) throws {
        let stale = now - Self.lastUseResolutionMilliseconds
        if let sessionID {
            guard (sessionUsedAt ?? 0) < stale else { return }
            try database.write { db in
                try db.run("UPDATE sessions SET last_used_at = ? WHERE id = ? AND last_used_at < ?", now, sessionID, now)
            }
        } else {
            guard (tokenUsedAt ?? 0) < stale else { return }
            try database.write { db in try db.run("UPDATE tokens SET last_used_at = ? WHERE id = ?", now, tokenID) }
        }
    }
}
