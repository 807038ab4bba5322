import Foundation
import NotesCore

/// Sign-in without a browser on this machine (`notes login --device`, RFC 8628): the server
/// hands out a device code and a short user code; the person opens the server's `/device` page
/// anywhere they are signed in, types the code and approves; meanwhile this command polls
/// `POST /v1/auth/token` at the server's interval until the answer is a session, a denial or
/// expiry. The session is an ordinary one, stored and refreshed like a password sign-in's.
enum DeviceSignIn {
    /// Asks for a code, shows it, and waits for the person's decision.
    /// - Parameter show: tells the person where to go and what to type.
    /// - Throws: `SignInError` when the sign-in is denied, expires or is interrupted
    ///   (SIGINT/SIGTERM), with nothing stored; `ClientError` when the server cannot be reached.
    static func login(server: ServerURL, store: CredentialStore, device: String,
                      show: @Sendable (String) -> Void) async throws -> StoredSession {
        let client = APIClient(server: server, credential: .anonymous)
        let start = try await client.send(try APIRequest.json("POST", "/v1/auth/device", DeviceAuthorizationRequest(device: device),
                                                              authenticated: false))
        let codes = try client.decode(DeviceAuthorizationResponse.self, from: start, what: "POST /v1/auth/device")
        // Ctrl-C (or SIGTERM) cancels the wait between polls: nothing is stored, the code expires.
        // Caught before the code is shown, so no Ctrl-C after it can fall between the two.
        let polling = Task { try await poll(client: client, server: server, codes: codes) }
        let signals = StopSignals { polling.cancel() }
        defer { signals.cancel() }
        show("""
            To sign in, open \(codes.verificationUri) in a browser where you can sign in to \(server),
            and enter the code: \(codes.userCode)
            (or open \(codes.verificationUriComplete))
            Waiting for approval (the code expires in \(codes.expiresIn / 60) minutes; Ctrl-C stops)...
            """)

        let tokens: TokenResponse
        do {
            tokens = try await polling.value
        } catch where polling.isCancelled {
            // Stopped while sleeping or mid-request: either way, by the signal.
            throw SignInError.stopped
        }
        return try await SignIn.keep(tokens, server: server, store: store)
    }

    /// Polls until the server answers with tokens or a final refusal (RFC 8628 §3.5), waiting
    /// the interval before each poll and five seconds more after each `slow_down`.
    private static func poll(client: APIClient, server: ServerURL, codes: DeviceAuthorizationResponse) async throws -> TokenResponse {
        var interval = max(1, codes.interval)
        let deadline = ContinuousClock.now + .seconds(codes.expiresIn)
        let request = try APIRequest.json("POST", "/v1/auth/token", DeviceTokenRequest(deviceCode: codes.deviceCode), authenticated: false)
        while true {
            try await Task.sleep(for: .seconds(interval))
            guard ContinuousClock.now < deadline + .seconds(interval) else {
                throw SignInError.codeExpired
            }
            do {
                let response = try await client.send(request)
                return try client.decode(TokenResponse.self, from: response, what: "POST /v1/auth/token")
            } catch ClientError.status(let error) where error.status == 400 {
                switch error.code {
                case "authorization_pending": continue
                case "slow_down": interval += 5
                case "access_denied": throw SignInError.denied
                case "expired_token": throw SignInError.codeExpired
                default: throw SignInError.deviceRefused(server: server, refusal: error)
                }
            } catch ClientError.status(let error) where error.status == 403 {
                throw SignInError.deviceRefused(server: server, refusal: error)
            }
        }
    }
}
