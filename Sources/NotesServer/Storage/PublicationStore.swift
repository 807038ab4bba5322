import NotesCore

/// A publication as stored: everything but the token, which only its digest stands for.
struct PublicationRecord: Sendable {
    let noteID: NoteID
    /// The note's path now (the publication follows the note through renames).
    let path: String
    let createdAt: Int64
    let expiresAt: Int64?
    let indexable: Bool

    /// The wire form; `token` only in the answer that created the publication.
    func resource(token: String? = nil) -> PublicationResource {
        PublicationResource(noteId: noteID, path: path, createdAt: WireTime.string(fromMilliseconds: createdAt),
                            expiresAt: expiresAt.map(WireTime.string(fromMilliseconds:)), indexable: indexable,
                            url: token.map(PublicationToken.path(for:)), token: token)
    }
}

/// What an anonymous reader of a live publication may see: the note's text and where it sits
/// (to resolve the relative addresses it embeds), and whether the owner allows indexing.
/// Deliberately no ids and no owner.
struct PublishedNote: Sendable {
    /// The owner, for finding the attachments the note embeds; never shown to a reader.
    let userID: Int64
    let content: String
    let path: String
    let indexable: Bool
    /// When the note last changed (milliseconds since 1970), shown in the page's header.
    let updatedAt: Int64
}

/// Why a note could not be published.
enum PublicationError: Error, Sendable, Equatable {
    /// The caller has no live note with that id (someone else's counts as none).
    case noteNotFound
}

/// The secret in a publication's link: 32 random bytes in unpadded base64url (43 characters,
/// 256 bits), so guessing one is hopeless; only its SHA-256 digest is stored.
enum PublicationToken {
    static let length = 43

    /// A fresh token.
    static func make() -> String { Base64URL.encode(SecureRandom.bytes(count: 32)) }

    /// Whether `text` is shaped like a token: anything else is refused before the database is asked.
    static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
        }
    }

    /// The digest stored in place of the token.
    static func digest(_ token: String) -> [UInt8] { SHA256.digest(of: Array(token.utf8)) }

    /// The page's address relative to the server: `/p/<token>`.
    static func path(for token: String) -> String { "/p/" + token }
}

/// Published notes: one note of one user, readable by anyone holding its link until the owner
/// revokes it, it expires, or the note is deleted (see `SchemaVersion9.swift`, whose
/// trigger ends it with the note). The only owner of the `publications` table.
struct PublicationStore: Sendable {
    let database: ServerDatabase
    let clock: ServerClock

    /// The longest lifetime a link may ask for: ten years, as for personal tokens.
    static let maxLifetimeSeconds = CreatePublicationRequest.maxLifetimeSeconds

    /// Publishes `userID`'s live note `noteID` under a new link. A link the note had before is
    /// deleted in the same transaction, so it stops working at once: publishing again is how an
    /// owner replaces a link that went further than meant. The user's ended publications
    /// (revoked, expired) are cleared out on the way, which bounds what the table keeps.
    /// - Returns: the stored record and the token, which is never stored and cannot be shown again.
    /// - Throws: `PublicationError.noteNotFound` when the user has no such live note.
    func publish(userID: Int64, noteID: NoteID, expiresInSeconds: Int?, indexable: Bool) throws -> (PublicationRecord, String) {
        let now = clock.now()
        let token = PublicationToken.make()
        let expiresAt = expiresInSeconds.map { now + Int64($0) * 1000 }
        let path: String = try database.write { db in
            guard let note = try db.first("SELECT nid, path FROM notes WHERE user_id = ? AND id = ? AND deleted = 0",
                                          [userID, noteID.value], row: { (nid: $0.int64(0), path: $0.string(1)) }) else {
                throw PublicationError.noteNotFound
            }
            // The note's old link (live or not) and every ended one of the user go: nothing reads them again.
            try db.run("""
                DELETE FROM publications WHERE nid = ? OR (user_id = ? AND (revoked_at IS NOT NULL OR expires_at <= ?))
                """, note.nid, userID, now)
            try db.run("""
                INSERT INTO publications (user_id, nid, token_hash, created_at, expires_at, indexable) VALUES (?, ?, ?, ?, ?, ?)
                """, userID, note.nid, PublicationToken.digest(token), now, expiresAt, indexable)
            return note.path
        }
        return (PublicationRecord(noteID: noteID, path: path, createdAt: now, expiresAt: expiresAt, indexable: indexable), token)
    }

    /// Ends the publication of `userID`'s note `noteID` at once.
    /// - Returns: `false` when the note has no live publication (someone else's note counts as none).
    func revoke(userID: Int64, noteID: NoteID) throws -> Bool {
        let now = clock.now()
        return try database.write { db in
            try db.run("""
                UPDATE publications SET revoked_at = ?
                WHERE user_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)
                  AND nid = (SELECT nid FROM notes WHERE user_id = ? AND id = ?)
                """, now, userID, now, userID, noteID.value) > 0
        }
    }

    /// `userID`'s publications that still work, newest first.
    func list(userID: Int64) throws -> [PublicationRecord] {
        try database.read { db in
            try db.compactQuery("""
                SELECT n.id, n.path, p.created_at, p.expires_at, p.indexable
                FROM publications p JOIN notes n ON n.nid = p.nid
                WHERE p.user_id = ? AND p.revoked_at IS NULL AND (p.expires_at IS NULL OR p.expires_at > ?) AND n.deleted = 0
                ORDER BY p.created_at DESC, p.id DESC
                """, [userID, clock.now()]) { row in
                NoteID(row.string(0)).map { id in
                    PublicationRecord(noteID: id, path: row.string(1), createdAt: row.int64(2),
                                      expiresAt: row.isNull(3) ? nil : row.int64(3), indexable: row.bool(4))
                }
            }
        }
    }

    /// The note behind `token`, if its publication is live: not revoked, not expired, its note
    /// not deleted and its owner not disabled. Every other case is the same `nil`, so a reader
    /// cannot tell a revoked link from one that never existed.
    func publishedNote(token: String) throws -> PublishedNote? {
        guard PublicationToken.isWellFormed(token) else { return nil }
        let digest = PublicationToken.digest(token)
        let found = try database.read { db in
            try db.first("""
                SELECT p.token_hash, n.content, n.path, p.indexable, p.user_id, n.updated_at
                FROM publications p JOIN notes n ON n.nid = p.nid JOIN users u ON u.id = p.user_id
                WHERE p.token_hash = ? AND p.revoked_at IS NULL AND (p.expires_at IS NULL OR p.expires_at > ?)
                  AND n.deleted = 0 AND u.disabled = 0
                """, [digest, clock.now()]) { row in
                (hash: row.bytes(0), note: PublishedNote(userID: row.int64(4), content: row.string(1), path: row.string(2),
                                                                 indexable: row.bool(3), updatedAt: row.int64(5)))
            }
        }
        guard let found, ConstantTime.equal(found.hash, digest) else { return nil }
        return found.note
    }
}
