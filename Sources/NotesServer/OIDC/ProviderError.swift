import Foundation

/// Why a request to an identity provider gave no usable answer. Descriptions name the provider's
/// endpoint and what went wrong, never a code, token or secret: they are logged.
enum ProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreachable(String)
    case timedOut(String)
    case tooLarge(String)
    /// A redirect to another origin (or of a request other than a GET), which is never followed.
    case redirected(String)
    case status(String, Int)
    /// The answer was not what the protocol promises.
    case badAnswer(String)
    /// The token endpoint refused the code (its OAuth `error` value, e.g. `invalid_grant`).
    case refused(String)

    var description: String {
        switch self {
        case .unreachable(let what): "the identity provider could not be reached (\(what))"
        case .timedOut(let what): "the identity provider did not answer in time (\(what))"
        case .tooLarge(let what): "the identity provider's answer was too large (\(what))"
        case .redirected(let what): "the identity provider redirected to another origin (\(what)), which is not followed"
        case .status(let what, let status): "the identity provider answered HTTP \(status) (\(what))"
        case .badAnswer(let why): "the identity provider's answer is unusable: \(why)"
        case .refused(let error): "the identity provider refused the sign-in code (\(error))"
        }
    }

    /// The transport's `failure` of the request `what` names.
    init(_ failure: OutgoingFailure, _ what: String) {
        switch failure {
        case .unreachable: self = .unreachable(what)
        case .timedOut: self = .timedOut(what)
        case .tooLarge: self = .tooLarge(what)
        case .redirected: self = .redirected(what)
        }
    }
}
