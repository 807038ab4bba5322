import NotesCore

/// Links between published notes: on a published page, a link to another note of the owner that
/// is published too leads to that note's page under the reader's own link,
/// `/p/<token>/n/<link id>` (`PublicationLinks`), served only while both are published.
///
/// A publication's token is stored only as a digest, so the page cannot name the other note's
/// own address. The link id is that digest in hex: it tells nothing about the token (finding a
/// token from its SHA-256 is hopeless), changes whenever the note is published anew, and is
/// shown only on pages whose owner published the note it names.
extension PublicationStore {
    /// The link id of a publication whose token digest is `digest`: its 64 hex digits.
    static func linkID(ofDigest digest: [UInt8]) -> String { Hex.encode(digest) }

    /// Whether `text` is shaped like a link id: anything else is refused before the database is asked.
    static func isWellFormedLinkID(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// `userID`'s live notes published now (not revoked, not expired), by path, each with the
    /// link id of its publication.
    func publishedNotes(userID: Int64) throws -> [String: String] {
        let now = clock.now()
        let rows = try database.read { db in
            try db.query("""
                SELECT n.path, p.token_hash FROM publications p JOIN notes n ON n.nid = p.nid
                WHERE p.user_id = ? AND p.revoked_at IS NULL AND (p.expires_at IS NULL OR p.expires_at > ?) AND n.deleted = 0
                """, [userID, now]) { row in (path: row.string(0), linkID: Self.linkID(ofDigest: row.bytes(1))) }
        }
        return Dictionary(rows.map { ($0.path, $0.linkID) }, uniquingKeysWith: { first, _ in first })
    }

    /// The note published under `linkID`, reached from the live publication `token`: both live,
    /// both the same owner's, the owner not disabled. Every other case is the same `nil`, as for
    /// `publishedNote(token:)`.
    func linkedNote(token: String, linkID: String) throws -> PublishedNote? {
        guard PublicationToken.isWellFormed(token), Self.isWellFormedLinkID(linkID), let target = Hex.decode(linkID) else { return nil }
        let digest = PublicationToken.digest(token)
        let now = clock.now()
        let found = try database.read { db in
            try db.first("""
                SELECT r.token_hash, n.content, n.path, p.indexable, p.user_id, n.updated_at
                FROM publications r JOIN notes rn ON rn.nid = r.nid
                JOIN publications p ON p.user_id = r.user_id JOIN notes n ON n.nid = p.nid JOIN users u ON u.id = p.user_id
                WHERE r.token_hash = ? AND r.revoked_at IS NULL AND (r.expires_at IS NULL OR r.expires_at > ?) AND rn.deleted = 0
                  AND p.token_hash = ? AND p.revoked_at IS NULL AND (p.expires_at IS NULL OR p.expires_at > ?) AND n.deleted = 0
                  AND u.disabled = 0
                """, [digest, now, target, now]) { row in
                (hash: row.bytes(0), note: PublishedNote(userID: row.int64(4), content: row.string(1), path: row.string(2),
                                                         indexable: row.bool(3), updatedAt: row.int64(5)))
            }
        }
        guard let found, ConstantTime.equal(found.hash, digest) else { return nil }
        return found.note
    }
}
