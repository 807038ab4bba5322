import NotesCore

/// Who is calling: the user a valid bearer token belongs to, and what the token may do.
struct Principal: Sendable, Equatable {
    let userID: Int64
    let username: String
    let scope: TokenScope
    /// The signed-in session an access token belongs to; `nil` for personal tokens.
    let sessionID: Int64?
    /// The token's public id.
    let tokenID: String
    /// Who writes, as revisions record it: the session's device name, `token:NAME` for a
    /// personal token, `nil` for a session signed in without a device name.
    var device: String? = nil
    /// When the token stops working (Unix milliseconds); `nil` for one that lasts until revoked.
    var tokenExpiresAt: Int64? = nil
    /// The signed-in account when it acts in a shared space, whose id `userID` then is
    /// (`acting(in:)`); `nil` in the account's own space, where `userID` is the account.
    var memberID: Int64? = nil

    /// The signed-in account: the author of what this caller writes.
    var accountID: Int64 { memberID ?? userID }

    /// The caller acting in the space `grant` lets it reach: the space's notes are held under
    /// the space's id, and a viewer's token may only read there.
    func acting(in grant: SpaceGrant) -> Principal {
        guard grant.spaceID != userID else { return self }
        var acting = Principal(userID: grant.spaceID, username: username, scope: grant.role.writes ? scope : .read,
                               sessionID: sessionID, tokenID: tokenID, device: device, tokenExpiresAt: tokenExpiresAt)
        acting.memberID = userID
        return acting
    }
}

/// The three kinds of bearer secret, told apart by a prefix so leaked ones are easy to spot.
enum TokenKind: String, Sendable {
    case access = "nat_"
    case refresh = "nrt_"
    case personal = "npt_"

    /// The prefixed secret's full length: the prefix plus 32 random bytes in base64url.
    static let secretLength = 4 + 43

    /// A fresh secret of this kind.
    func makeSecret() -> String { SecureRandom.token(prefix: rawValue) }

    /// The kind a presented secret claims to be, or `nil` when it is not shaped like any.
    static func of(_ secret: String) -> TokenKind? {
        guard secret.utf8.count == secretLength else { return nil }
        let allowed = secret.utf8.dropFirst(4).allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
        }
        guard allowed else { return nil }
        return [TokenKind.access, .refresh, .personal].first { secret.hasPrefix($0.rawValue) }
    }

    /// The digest stored in place of the secret.
    static func digest(_ secret: String) -> [UInt8] { SHA256.digest(of: Array(secret.utf8)) }
}
