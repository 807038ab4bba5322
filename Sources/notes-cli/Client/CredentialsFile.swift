import Foundation
import NotesCore

/// The whole `credentials.json` file: a format version and, per server, its signed-in accounts.
///
/// Version 2 keeps several accounts per server, keyed by user id, and which one is the default
/// (like `gh auth switch`). Version 1 kept one session per server; it is read transparently
/// (its session becomes the server's only account, identified at first use) and written back
/// as version 2 by the next change.
struct CredentialsFile: Codable, Sendable, Equatable {
    static let currentVersion = 2

    var version: Int = currentVersion
    /// Accounts keyed by canonical server URL.
    var servers: [String: ServerAccounts] = [:]
    /// The server whose last signed-in account ended here (revoked, expired or signed out), so
    /// `notes login` signs in there again without asking which server; nil once one is signed in.
    var lastEndedServer: String?

    init() {}

    private enum CodingKeys: String, CodingKey {
        case version, servers, lastEndedServer
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decodeIfPresent(Int.self, forKey: .version) ?? 1
        switch version {
        case 1:
            let legacy = try container.decodeIfPresent([String: StoredSession].self, forKey: .servers) ?? [:]
            for (server, var session) in legacy {
                session.userId = nil
                servers[server] = ServerAccounts(unidentified: session)
            }
        case Self.currentVersion:
            servers = try container.decodeIfPresent([String: ServerAccounts].self, forKey: .servers) ?? [:]
            lastEndedServer = try container.decodeIfPresent(String.self, forKey: .lastEndedServer)
        default:
            throw DecodingError.dataCorruptedError(forKey: .version, in: container,
                                                   debugDescription: "credentials format \(version) is newer than this notes")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.currentVersion, forKey: .version)
        try container.encode(servers.filter { !$0.value.isEmpty }, forKey: .servers)
        try container.encodeIfPresent(lastEndedServer, forKey: .lastEndedServer)
    }

    /// Every session stored for `server`, the default first, then by user name.
    func sessions(server: String) -> [StoredSession] {
        servers[server]?.all ?? []
    }

    /// The session of account `userId` on `server`; for nil, the unidentified session kept
    /// from a version 1 file.
    func session(server: String, userId: Int64?) -> StoredSession? {
        guard let accounts = servers[server] else { return nil }
        guard let userId else { return accounts.unidentified }
        return accounts.accounts[String(userId)]
    }

    /// The account commands outside a bound folder use on `server`: the one last signed in to,
    /// else the only one there is.
    func defaultSession(server: String) -> StoredSession? {
        guard let accounts = servers[server] else { return nil }
        if let id = accounts.defaultUserId, let session = accounts.accounts[String(id)] { return session }
        let all = accounts.all
        return all.count == 1 ? all[0] : nil
    }

    /// Stores `session` under its account (its user id), replacing that account's earlier
    /// session and, once the account is known, the unidentified one it came from.
    /// - Parameter makeDefault: whether it becomes the default for `server` (a login does).
    mutating func store(_ session: StoredSession, replacing old: StoredSession? = nil, makeDefault: Bool) {
        var accounts = servers[session.server] ?? ServerAccounts()
        if let old, old.userId == nil, accounts.unidentified?.refreshToken == old.refreshToken {
            accounts.unidentified = nil
            // The unidentified session was the default (the only one, from version 1).
            if accounts.defaultUserId == nil { accounts.defaultUserId = session.userId }
        }
        if let id = session.userId {
            accounts.accounts[String(id)] = session
            if makeDefault { accounts.defaultUserId = id }
        } else {
            accounts.unidentified = session
        }
        servers[session.server] = accounts
        lastEndedServer = nil
    }

    /// Forgets `session`'s account on its server, but only while the stored session is still
    /// one of `tokens` (refresh tokens), so a newer sign-in stored meanwhile survives.
    /// - Returns: whether it was removed.
    @discardableResult
    mutating func remove(_ session: StoredSession, ifRefreshTokenIn tokens: Set<String>) -> Bool {
        guard var accounts = servers[session.server],
              let current = self.session(server: session.server, userId: session.userId),
              tokens.contains(current.refreshToken) else { return false }
        if let id = session.userId {
            accounts.accounts[String(id)] = nil
            if accounts.defaultUserId == id { accounts.defaultUserId = nil }
        } else {
            accounts.unidentified = nil
        }
        // With one account left, it is the default without asking.
        if accounts.defaultUserId == nil, accounts.accounts.count == 1, accounts.unidentified == nil {
            accounts.defaultUserId = accounts.accounts.values.first?.userId
        }
        servers[session.server] = accounts.isEmpty ? nil : accounts
        if servers.isEmpty { lastEndedServer = session.server }
        return true
    }
}

/// The accounts signed in to one server.
struct ServerAccounts: Codable, Sendable, Equatable {
    /// The account new bindings and commands outside a folder use.
    var defaultUserId: Int64?
    /// Sessions keyed by the server's user id (as a string: JSON object keys are strings).
    var accounts: [String: StoredSession] = [:]
    /// A session kept from a version 1 file, whose user id is not known yet.
    var unidentified: StoredSession?

    var isEmpty: Bool { accounts.isEmpty && unidentified == nil }

    /// The default account first, then the others by user name, the unidentified one last.
    var all: [StoredSession] {
        let sorted = accounts.values.sorted {
            ($0.userId == defaultUserId ? 0 : 1, $0.username, $0.userId ?? 0) < ($1.userId == defaultUserId ? 0 : 1, $1.username, $1.userId ?? 0)
        }
        return sorted + (unidentified.map { [$0] } ?? [])
    }
}
