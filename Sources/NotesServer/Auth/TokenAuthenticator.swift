import NotesCore

/// Turns an `Authorization: Bearer …` header into a `Principal`, or the RFC 6750 answer.
///
/// Only SHA-256 digests of tokens are stored; the presented secret is hashed and looked up by
/// digest, then the digests are compared in constant time. Error descriptions say whether a
/// token is expired, revoked or unknown, never anything about the secret's content.
struct TokenAuthenticator: Sendable {
    let database: DatabaseQueue
    let clock: ServerClock

    func authenticate(_ request: HTTPRequest) throws -> Principal {
        guard let header = request.headers["Authorization"] else { throw HTTPError.unauthenticated() }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw HTTPError(400, code: "invalid_request", message: "The Authorization header must be `Bearer <token>`.",
                            headers: ["WWW-Authenticate": #"Bearer realm="notes", error="invalid_request""#])
        }
        let secret = parts[1].trimmingCharacters(in: .whitespaces)
        guard let kind = TokenKind.of(secret), kind != .refresh else { throw HTTPError.invalidToken("is malformed") }
        let digest = TokenKind.digest(secret)
        let now = clock.now()
        let found = try database.read { db in
            try db.first("""
                SELECT t.hash, t.id, t.scope, t.expires_at, t.revoked_at, t.session_id, s.revoked_at, u.id, u.username, u.disabled
                FROM tokens t JOIN users u ON u.id = t.user_id LEFT JOIN sessions s ON s.id = t.session_id
                WHERE t.hash = ?
                """, [digest]) { row in
                (hash: row.bytes(0), id: row.string(1), scope: row.string(2),
                 expiresAt: row.isNull(3) ? nil : row.int64(3), revoked: !row.isNull(4),
                 sessionID: row.isNull(5) ? nil : row.int64(5), sessionRevoked: !row.isNull(6),
                 userID: row.int64(7), username: row.string(8), disabled: row.bool(9))
            }
        }
        guard let token = found, ConstantTime.equal(token.hash, digest) else { throw HTTPError.invalidToken("is unknown") }
        if token.revoked || token.sessionRevoked { throw HTTPError.invalidToken("was revoked") }
        if token.disabled { throw HTTPError.invalidToken("belongs to a disabled account") }
        if let expiresAt = token.expiresAt, expiresAt <= now { throw HTTPError.invalidToken("expired") }
        if kind == .personal { try touch(tokenID: token.id, now: now) }
        return Principal(userID: token.userID, username: token.username, scope: TokenScope(rawValue: token.scope) ?? .read,
                         sessionID: token.sessionID, tokenID: token.id)
    }

    /// Records a personal token's last use, at most once a minute so reads stay reads.
    private func touch(tokenID: String, now: Int64) throws {
        try database.read { db in
            try db.run("UPDATE tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
                       now, tokenID, now - 60_000)
        }
    }
}
