import Foundation
import NotesCommandLine
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sign-in through the browser with an identity provider (`notes login --web`, RFC 8252): the
/// client listens on a loopback port, sends the browser to the server's `/auth/cli/start` with a
/// PKCE challenge and a state, receives a one-time code on its loopback redirect and exchanges
/// it, with the PKCE verifier, at `POST /v1/auth/token` for an ordinary session.
enum WebSignIn {
    /// How long the browser has to come back: the server forgets a sign-in after ten minutes.
    static let waitLimit: Duration = .seconds(600)

    /// Signs in through `provider` (or the server's only provider when `nil`) and stores the
    /// session like a password sign-in does.
    /// - Parameters:
    ///   - show: tells the person where to go (the URL is always shown, browser or not).
    ///   - openBrowser: whether to try `xdg-open` (or `open` on macOS).
    /// - Throws: `SignInError` with the server's or provider's reason when sign-in fails.
    static func login(server: ServerURL, provider requested: String?, store: CredentialStore, device: String,
                      openBrowser: Bool, show: @Sendable (String) -> Void) async throws -> StoredSession {
        let client = APIClient(server: server, credential: .anonymous)
        let provider = try await chooseProvider(requested, client: client, server: server)
        let receiver = try WebSignInReceiver()
        let verifier = randomToken()
        let state = randomToken()
        guard let start = server.url(path: "/auth/cli/start", query: [
            ("provider", provider), ("redirect_uri", receiver.redirectURI), ("code_challenge", challenge(for: verifier)),
            ("code_challenge_method", "S256"), ("state", state),
        ]) else { throw SignInError.startURLNotBuilt(server: server) }

        show("To sign in, open this page in a browser (it comes back to this command on port \(receiver.port)):\n  \(start.absoluteString)")
        if openBrowser { launchBrowser(start) }
        let answer = try await receiver.waitForRedirect(timeout: waitLimit) { parameters in
            if parameters["state"] != state { return "This sign-in does not belong to the waiting command; nothing was changed." }
            if let error = parameters["error"] {
                return "Sign-in failed: " + WebSignInReceiver.escapeHTML(parameters["error_description"] ?? error) + " You can close this window."
            }
            return "Signed in to Notes. You can close this window and return to the terminal."
        }
        // A state that is not ours: another page (or site) sent the browser here. Refuse it.
        guard answer["state"] == state else { throw SignInError.foreignState }
        if let error = answer["error"] {
            let reason = answer["error_description"].map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 } ?? error
            throw SignInError.providerFailed(provider: provider, reason: reason)
        }
        guard let code = answer["code"], !code.isEmpty else { throw SignInError.noCode }

        let body = TokenGrantRequest(code: code, codeVerifier: verifier, redirectUri: receiver.redirectURI, device: device)
        let request = try APIRequest.json("POST", "/v1/auth/token", body, authenticated: false)
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch ClientError.status(let error) where error.status == 400 || error.status == 403 {
            throw SignInError.codeRefused(server: server, refusal: error)
        }
        let tokens = try client.decode(TokenResponse.self, from: response, what: "POST /v1/auth/token")
        return try await SignIn.keep(tokens, server: server, store: store)
    }

    /// The provider to use: `requested` when the server has it, else the server's only one.
    private static func chooseProvider(_ requested: String?, client: APIClient, server: ServerURL) async throws -> String {
        let response = try await client.send(APIRequest("GET", "/v1/auth/providers", authenticated: false))
        let providers = try client.decode(SignInProvidersResponse.self, from: response, what: "GET /v1/auth/providers").providers
        let names = providers.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
        if let requested {
            guard providers.contains(where: { $0.id == requested }) else {
                throw providers.isEmpty ? SignInError.noProvider(server: server)
                    : SignInError.unknownProvider(server: server, requested: requested, available: names)
            }
            return requested
        }
        switch providers.count {
        case 0: throw SignInError.noProvider(server: server)
        case 1: return providers[0].id
        default: throw UsageError("\(server) has several identity providers: pass --provider with one of \(names)")
        }
    }

    /// 32 random bytes in base64url: a PKCE verifier (RFC 7636 §4.1) or a state.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The S256 challenge for `verifier`.
    static func challenge(for verifier: String) -> String {
        base64URL(SHA256.digest(of: Array(verifier.utf8)))
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Starts the desktop's browser on `url` when an opener is installed; quietly does nothing
    /// otherwise (the URL was printed).
    private static func launchBrowser(_ url: URL) {
        #if os(macOS)
        let candidates = ["/usr/bin/open"]
        #else
        let candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/xdg-open" }
        #endif
        guard let opener = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opener)
        process.arguments = [url.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? BatchScheduling.startingInteractiveProgram { try process.run() }
    }
}
