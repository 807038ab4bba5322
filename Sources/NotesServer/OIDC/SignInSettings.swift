import Foundation
import NotesCommandLine

/// One OpenID Connect provider the operator configured (`--oidc-providers FILE`).
struct OIDCProviderSettings: Sendable, Equatable {
    /// Short name used in URLs and by `notes login --web --provider ID`: `[a-z0-9_-]`, 1–32.
    let id: String
    /// The issuer URL, exactly as the provider's discovery document and ID tokens state it.
    let issuer: String
    let clientID: String
    /// Read from a file or an environment variable at start; never on the command line.
    let clientSecret: String?
    /// What a person sees: "Sign in with <displayName>".
    let displayName: String
    /// A first sign-in with an identity nobody has creates an account; otherwise an admin links it.
    let allowSignUp: Bool
    /// A first sign-in whose provider says the email is verified joins the account that already
    /// has an identity with that verified email (from another provider). Off by default.
    let trustVerifiedEmail: Bool
    /// Bounds every request to the provider (connection, answer, whole transfer).
    let timeoutSeconds: Int
    /// Scopes asked for; `openid` is always among them.
    let scopes: [String]
}

/// Sign-in with identity providers: the providers and the address the server is reached at,
/// which their redirect to `/auth/oidc/callback` must use.
struct SignInSettings: Sendable {
    var providers: [OIDCProviderSettings] = []
    /// The server's public base URL (`--public-url`), such as `https://notes.example.org`.
    var publicURL: URL?

    /// The redirect URI registered at every provider.
    var callbackURL: URL? {
        publicURL.map { URL(string: $0.absoluteString.trimmingSuffix("/") + "/auth/oidc/callback")! }
    }

    func provider(_ id: String) -> OIDCProviderSettings? {
        providers.first { $0.id == id }
    }

    /// Reads the providers file (JSON, documented in `serve --help` and the README), taking each
    /// client secret from the file or environment variable it names.
    /// - Throws: `UsageError` saying what is wrong and where.
    /// `readSecrets: false` (admin commands) skips the secrets, which only `serve` needs.
    static func loadProviders(fromFile path: String, environment: [String: String],
                              readSecrets: Bool = true) throws(UsageError) -> [OIDCProviderSettings] {
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("--oidc-providers: cannot read \(path)") }
        let file: ProvidersFile
        do {
            file = try JSONDecoder().decode(ProvidersFile.self, from: data)
        } catch {
            throw UsageError("--oidc-providers: \(path) is not a valid providers file: \(Self.reason(error))")
        }
        var providers: [OIDCProviderSettings] = []
        for entry in file.providers {
            let where_ = "provider '\(entry.id)' in \(path)"
            guard !entry.id.isEmpty, entry.id.utf8.count <= 32,
                  entry.id.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }) else {
                throw UsageError("--oidc-providers: a provider id is 1 to 32 of a-z, 0-9, '-', '_' (not '\(entry.id)')")
            }
            guard !providers.contains(where: { $0.id == entry.id }) else { throw UsageError("--oidc-providers: two providers are named '\(entry.id)'") }
            guard let issuer = URL(string: entry.issuer), let scheme = issuer.scheme, let host = issuer.host, issuer.query == nil else {
                throw UsageError("--oidc-providers: \(where_) needs an issuer URL such as https://accounts.google.com")
            }
            guard scheme == "https" || (scheme == "http" && ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)) else {
                throw UsageError("--oidc-providers: \(where_): the issuer must be https (plain http only on loopback, for testing)")
            }
            guard !entry.clientID.isEmpty else { throw UsageError("--oidc-providers: \(where_) needs a client_id") }
            if entry.clientSecret != nil { throw UsageError("--oidc-providers: \(where_): put the secret in client_secret_file or client_secret_env, not in the file") }
            var secret: String?
            switch (entry.clientSecretFile, entry.clientSecretEnv) {
            case (_?, nil) where !readSecrets, (nil, _?) where !readSecrets: secret = nil
            case (let file?, nil):
                guard let bytes = FileManager.default.contents(atPath: file) else { throw UsageError("--oidc-providers: \(where_): cannot read \(file)") }
                secret = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            case (nil, let variable?):
                guard let value = environment[variable], !value.isEmpty else {
                    throw UsageError("--oidc-providers: \(where_): the environment variable \(variable) is not set")
                }
                secret = value
            case (nil, nil): secret = nil
            case (_?, _?): throw UsageError("--oidc-providers: \(where_): give client_secret_file or client_secret_env, not both")
            }
            if let secret, secret.isEmpty { throw UsageError("--oidc-providers: \(where_): the client secret is empty") }
            let timeout = entry.timeoutSeconds ?? 10
            guard (1...120).contains(timeout) else { throw UsageError("--oidc-providers: \(where_): timeout_seconds is 1 to 120") }
            var scopes = entry.scopes ?? ["openid", "email", "profile"]
            if !scopes.contains("openid") { scopes.insert("openid", at: 0) }
            providers.append(OIDCProviderSettings(
                id: entry.id, issuer: entry.issuer, clientID: entry.clientID, clientSecret: secret,
                displayName: entry.displayName ?? entry.id, allowSignUp: entry.allowSignUp ?? false,
                trustVerifiedEmail: entry.trustVerifiedEmail ?? false, timeoutSeconds: timeout, scopes: scopes))
        }
        guard !providers.isEmpty else { throw UsageError("--oidc-providers: \(path) lists no provider") }
        return providers
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "\"\(key.stringValue)\" is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "\"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
        default: "not JSON"
        }
    }

    /// The file's shape.
    private struct ProvidersFile: Decodable {
        let providers: [Entry]

        struct Entry: Decodable {
            let id: String
            let issuer: String
            let clientID: String
            let clientSecret: String?
            let clientSecretFile: String?
            let clientSecretEnv: String?
            let displayName: String?
            let allowSignUp: Bool?
            let trustVerifiedEmail: Bool?
            let timeoutSeconds: Int?
            let scopes: [String]?

            enum CodingKeys: String, CodingKey {
                case id, issuer, scopes
                case clientID = "client_id"
                case clientSecret = "client_secret"
                case clientSecretFile = "client_secret_file"
                case clientSecretEnv = "client_secret_env"
                case displayName = "display_name"
                case allowSignUp = "allow_sign_up"
                case trustVerifiedEmail = "trust_verified_email"
                case timeoutSeconds = "timeout_seconds"
            }
        }
    }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

extension SignInSettings {
    /// The settings `serve`'s `--oidc-providers FILE` and `--public-url URL` give.
    /// - Throws: `UsageError` when one comes without the other or either is invalid.
    static func parse(providersFile: String?, publicURL: String?, environment: [String: String]) throws(UsageError) -> SignInSettings {
        var settings = SignInSettings()
        if let publicURL {
            guard let url = URL(string: publicURL), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil,
                  url.query == nil, url.fragment == nil else {
                throw UsageError("--public-url takes the server's base URL, such as https://notes.example.org")
            }
            settings.publicURL = url
        }
        guard let providersFile else { return settings }
        guard settings.publicURL != nil else {
            throw UsageError("--oidc-providers needs --public-url, the address the providers send browsers back to")
        }
        settings.providers = try loadProviders(fromFile: providersFile, environment: environment)
        return settings
    }
}
