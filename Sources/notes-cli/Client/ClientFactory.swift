import Foundation

/// Turns the command line and environment into the server to talk to and the credential to
/// talk with, by one rule for every command:
///
/// - server: `--server`, else `NOTES_SERVER`, else the one server signed in to (several: ask);
/// - credential: `NOTES_TOKEN` (a personal token, for scripts and CI) when set, else the
///   session `notes login` stored for that server.
struct ClientFactory: Sendable {
    var environment: [String: String]
    var store: CredentialStore

    init(environment: [String: String]) throws(CLIError) {
        self.environment = environment
        store = try CredentialStore(environment: environment)
    }

    /// The personal token from `NOTES_TOKEN`, if set and not empty.
    var personalToken: String? {
        guard let token = environment["NOTES_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines),
              !token.isEmpty else { return nil }
        return token
    }

    /// The server named by `--server` or `NOTES_SERVER`, or nil when neither is given.
    func explicitServer(_ option: String?) throws(CLIError) -> ServerURL? {
        if let option { return try ServerURL(option) }
        if let variable = environment["NOTES_SERVER"], !variable.isEmpty { return try ServerURL(variable) }
        return nil
    }

    /// The server to use: explicit, else the single one with stored credentials.
    /// - Throws: exit 4 when none is known, a usage error when several are and none was chosen.
    func server(_ option: String?) throws -> ServerURL {
        if let server = try explicitServer(option) { return server }
        let stored = try store.load().servers.keys.sorted()
        switch stored.count {
        case 0:
            if personalToken != nil { throw CLIError.usage("NOTES_TOKEN is set but no server is: set NOTES_SERVER or pass --server URL") }
            throw CLIError(.signInRequired, "not signed in: run `notes login --server URL`")
        case 1:
            return try ServerURL(stored[0])
        default:
            throw CLIError.usage("signed in to several servers (\(stored.joined(separator: ", "))): choose one with --server or NOTES_SERVER")
        }
    }

    /// The authenticated client for `--server` (or the default server).
    /// - Throws: exit 4 when there is no stored session for the server and no `NOTES_TOKEN`.
    func client(server option: String?) throws -> APIClient {
        let server = try server(option)
        if let token = personalToken {
            return APIClient(server: server, credential: .personalToken(token))
        }
        guard let session = try store.session(for: server) else {
            throw CLIError(.signInRequired, "not signed in to \(server): run `notes login --server \(server)`")
        }
        return APIClient(server: server, credential: .session(session, store))
    }
}
