/// Why signing in (`notes login`: password, `--web` or `--device`) did not end in a stored
/// session; nothing was stored then. The server's refusal is kept where there was one.
enum SignInError: Error, Sendable, CustomStringConvertible {
    /// The server refused the user name and password (401).
    case wrongPassword(server: ServerURL)
    /// The server's sign-in throttle refused (429), for `retryAfter` seconds when it said.
    case tooManyAttempts(server: ServerURL, retryAfter: Double?)
    /// The server answered with a session but no refresh token, so it could not be kept.
    case noRefreshToken(server: ServerURL)
    /// `--web`: no loopback port for the browser to come back to (`listening`: the socket was
    /// opened but could not listen).
    case noLoopbackPort(listening: Bool)
    /// `--web`: the browser did not come back within `minutes`.
    case browserTimedOut(minutes: Int)
    /// `--web`: the sign-in page's URL could not be built.
    case startURLNotBuilt(server: ServerURL)
    /// `--web`: the browser came back with a state this command did not send.
    case foreignState
    /// `--web`: the provider or server sent the browser back with an error.
    case providerFailed(provider: String, reason: String)
    /// `--web`: the browser came back with neither a code nor an error.
    case noCode
    /// `--web`: the server refused to turn the code into a session.
    case codeRefused(server: ServerURL, refusal: APIStatusError)
    /// `--web`: the server has no identity provider at all.
    case noProvider(server: ServerURL)
    /// `--web --provider`: the server has no such provider; `available` are the ones it has.
    case unknownProvider(server: ServerURL, requested: String, available: String)
    /// `--device`: stopped (SIGINT, SIGTERM) before the approval.
    case stopped
    /// `--device`: the code expired before it was approved.
    case codeExpired
    /// `--device`: the person denied the sign-in in the browser.
    case denied
    /// `--device`: the server refused the device sign-in.
    case deviceRefused(server: ServerURL, refusal: APIStatusError)

    /// The user's sentence, as `CLI.outcome(of:)` words it (so an error interpolated into a
    /// message reads the same as one reported at exit).
    var description: String { CLI.sentence(of: self) }
}
