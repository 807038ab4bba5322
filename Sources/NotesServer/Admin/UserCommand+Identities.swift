import Foundation
import NotesCommandLine
import NotesCore

/// `user link` and `user unlink`: which identities at providers sign in to which account.
extension UserCommand {
    static let identityOptions: [OptionSpec] = [
        .value("provider", placeholder: "P", help: """
            The provider: its issuer URL (https://accounts.google.com), or its id in the file given with --oidc-providers
            """),
        .value("subject", placeholder: "S", help: "The user's subject (`sub`) at the provider, a stable id it assigns"),
        .value("oidc-providers", .file, placeholder: "FILE", help: "The providers file `serve` uses, to name the provider by id"),
    ]

    /// The provider option resolved to (name to record, issuer).
    static func resolveProvider(_ parsed: ParsedCommand) throws -> (provider: String, issuer: String, subject: String) {
        // Every option read before any is judged, so each is known to be read.
        let provider = parsed.value("provider"), subject = parsed.value("subject"), file = parsed.value("oidc-providers")
        guard let provider, !provider.isEmpty else { throw UsageError("pass --provider P (an issuer URL or a provider id)") }
        guard let subject, !subject.isEmpty, subject.utf8.count <= 255 else {
            throw UsageError("pass --subject S, the user's subject at the provider (1 to 255 bytes)")
        }
        if provider.contains("://") {
            guard let url = URL(string: provider), url.host != nil else { throw UsageError("--provider '\(provider)' is not a URL") }
            return (url.host ?? provider, provider, subject)
        }
        guard let file else {
            throw UsageError("--provider \(provider) is an id: pass the providers file with --oidc-providers FILE, or give the issuer URL")
        }
        let providers = try SignInSettings.loadProviders(fromFile: file, environment: [:], readSecrets: false)
        guard let settings = providers.first(where: { $0.id == provider }) else {
            throw UsageError("\(file) has no provider '\(provider)' (it has: \(providers.map(\.id).joined(separator: ", ")))")
        }
        return (settings.id, settings.issuer, subject)
    }

    /// What `link` and `unlink` are given: the account, and the identity at a provider.
    struct IdentityArguments {
        let account: NamedAccount
        let identity: (provider: String, issuer: String, subject: String)

        init(_ parsed: ParsedCommand) throws {
            account = NamedAccount(parsed)
            identity = try UserCommand.resolveProvider(parsed)
        }

        /// Runs `body` on the account's identities; a refusal becomes what `refusal` says of it.
        /// - Returns: the account.
        func change(_ body: (IdentityStore, UserRecord) throws -> Void,
                    refusal: (IdentityError, UserRecord) -> String) throws -> UserRecord {
            let (users, user) = try account.existing()
            do {
                try body(IdentityStore(database: users.database, clock: users.clock), user)
            } catch let error as IdentityError {
                throw AdminError(refusal(error, user))
            }
            return user
        }
    }

    /// `user link NAME --provider P --subject S`.
    struct Link: IdentityCommand {
        static let spec = CommandSpec(
            "link", abstract: "Let an identity at a provider sign in to a user",
            discussion: """
                Links the identity (the provider's issuer, the subject it gives the person) to NAME, so signing in
                with that provider (notes login --web) signs in as NAME. An identity belongs to one user.
                """,
            options: identityOptions, positionals: [nameArgument])

        let arguments: IdentityArguments

        func run() throws {
            let identity = arguments.identity
            let user = try arguments.change { identities, user in
                try identities.link(userID: user.id, provider: identity.provider, issuer: identity.issuer, subject: identity.subject)
            } refusal: { error, _ in error.description }
            printLine("Linked \(identity.subject) at \(identity.issuer) to \(user.username).")
        }
    }

    /// `user unlink NAME --provider P --subject S`.
    struct Unlink: IdentityCommand {
        static let spec = CommandSpec(
            "unlink", abstract: "Stop an identity at a provider from signing in to a user",
            discussion: "Removes the link; the user's sessions, password and other identities stay.",
            options: identityOptions, positionals: [nameArgument])

        let arguments: IdentityArguments

        func run() throws {
            let identity = arguments.identity
            let user = try arguments.change { identities, user in
                try identities.unlink(userID: user.id, issuer: identity.issuer, subject: identity.subject)
            } refusal: { error, user in "\(user.username): \(error.description)" }
            printLine("Unlinked \(identity.subject) at \(identity.issuer) from \(user.username).")
        }
    }
}

/// `user link` or `user unlink`: parsed into the account and the identity.
protocol IdentityCommand: AdminCommand {
    init(arguments: UserCommand.IdentityArguments)
}

extension IdentityCommand {
    init(_ parsed: ParsedCommand) throws {
        self.init(arguments: try UserCommand.IdentityArguments(parsed))
    }
}
