import Foundation
import NotesCore

/// An account at an identity provider, linked to one Notes account.
struct IdentityRecord: Sendable, Equatable {
    let userID: Int64
    let provider: String
    let issuer: String
    let subject: String
    let createdAt: Int64
}

/// Why a sign-in with a provider found no account to sign in to.
enum IdentityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nobody linked this identity and the provider does not allow sign-up.
    case noAccount
    case alreadyLinked(to: String)
    case notLinked

    var description: String {
        switch self {
        case .noAccount: "no account is linked to this identity, and this provider does not create accounts"
        case .alreadyLinked(let name): "this identity is already linked to \(name)"
        case .notLinked: "no such identity is linked to this user"
        }
    }
}

/// Identities at providers, the owner of the `identities` table: the sign-in policy (find the
/// linked account, else join by a trusted verified email, else create one when sign-up is
/// allowed) and the admin's links.
struct IdentityStore: Sendable {
    let database: ServerDatabase
    let clock: ServerClock

    /// The account this sign-in belongs to, linking or creating one as `provider` allows.
    ///
    /// Never joins an existing account by email unless the operator trusts verified email for
    /// this provider and the provider says this email is verified; the account joined is one
    /// that already has an identity with the same verified email. An account created here takes
    /// its name from `preferred_username`, else the email's local part, made valid and unique;
    /// it has no password.
    /// - Throws: `IdentityError.noAccount` when none is found and sign-up is off.
    func account(for claims: IDTokenClaims, provider: OIDCProviderSettings) throws -> UserRecord {
        let now = clock.now()
        let email = claims.emailVerified ? claims.email.map { $0.lowercased() } : nil
        return try database.write { db in
            if let userID = try db.scalarInt("SELECT user_id FROM identities WHERE issuer = ? AND subject = ?", [claims.iss, claims.sub]) {
                try db.run("UPDATE identities SET last_used_at = ?, verified_email = coalesce(?, verified_email) WHERE issuer = ? AND subject = ?",
                           now, email, claims.iss, claims.sub)
                guard let user = try UserStore.find(id: userID, in: db) else { throw IdentityError.noAccount }
                return user
            }
            if provider.trustVerifiedEmail, let email,
               let userID = try db.scalarInt("SELECT user_id FROM identities WHERE verified_email = ? ORDER BY id LIMIT 1", [email]),
               let user = try UserStore.find(id: userID, in: db) {
                try insert(db, userID: userID, provider: provider.id, claims: claims, email: email, now: now)
                return user
            }
            guard provider.allowSignUp else { throw IdentityError.noAccount }
            let base = UserStore.usableName(from: claims.preferredUsername)
                ?? UserStore.usableName(from: claims.email.flatMap { $0.split(separator: "@").first.map(String.init) })
                ?? "user"
            let user = try UserStore.insertUnique(baseName: base, passwordHash: "", in: db, now: now)
            try insert(db, userID: user.id, provider: provider.id, claims: claims, email: email, now: now)
            return user
        }
    }

    private func insert(_ db: some SQLConnection, userID: Int64, provider: String, claims: IDTokenClaims, email: String?, now: Int64) throws {
        try db.run("""
            INSERT INTO identities (user_id, provider, issuer, subject, verified_email, created_at, last_used_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, userID, provider, claims.iss, claims.sub, email, now, now)
    }

    /// Links (`issuer`, `subject`) to `userID` (`notes-server user link`).
    /// - Throws: `IdentityError.alreadyLinked` when the identity belongs to an account already.
    func link(userID: Int64, provider: String, issuer: String, subject: String) throws {
        try database.write { db in
            if let owner = try db.scalarString("""
                SELECT u.username FROM identities i JOIN users u ON u.id = i.user_id WHERE i.issuer = ? AND i.subject = ?
                """, [issuer, subject]) {
                throw IdentityError.alreadyLinked(to: owner)
            }
            try db.run("INSERT INTO identities (user_id, provider, issuer, subject, created_at) VALUES (?, ?, ?, ?, ?)",
                       userID, provider, issuer, subject, clock.now())
        }
    }

    /// Removes `userID`'s identity (`issuer`, `subject`); the account and its sessions stay.
    /// - Throws: `IdentityError.notLinked` when the user has no such identity.
    func unlink(userID: Int64, issuer: String, subject: String) throws {
        try database.write { db in
            guard try db.run("DELETE FROM identities WHERE user_id = ? AND issuer = ? AND subject = ?", userID, issuer, subject) == 1 else {
                throw IdentityError.notLinked
            }
        }
    }

    /// Every identity, by user then creation, for `user list`.
    func all() throws -> [IdentityRecord] {
        try database.read { db in
            try db.query("SELECT user_id, provider, issuer, subject, created_at FROM identities ORDER BY user_id, id") {
                IdentityRecord(userID: $0.int64(0), provider: $0.string(1), issuer: $0.string(2), subject: $0.string(3), createdAt: $0.int64(4))
            }
        }
    }
}
