import Foundation

/// The command-line client's redirect URI (RFC 8252 §7.3): plain `http` to a loopback IP
/// literal with a port, nothing else. `localhost` is refused (§8.3: a name can be made to
/// resolve elsewhere), and so is any other host, which would hand the one-time code to it.
enum LoopbackRedirect {
    static let maxLength = 512

    /// `text` when it is an acceptable loopback redirect, else `nil`.
    static func validate(_ text: String) -> String? {
        guard text.utf8.count <= maxLength, let components = URLComponents(string: text),
              components.scheme == "http", let host = components.host, ["127.0.0.1", "::1", "[::1]"].contains(host),
              let port = components.port, (1...65535).contains(port),
              components.user == nil, components.password == nil, components.query == nil, components.fragment == nil,
              components.path.isEmpty || components.path.hasPrefix("/") else { return nil }
        return text
    }

    /// `redirectURI` with `parameters` added as its query, form-encoded.
    static func url(_ redirectURI: String, _ parameters: [(String, String)]) -> String {
        redirectURI + "?" + parameters.map { OIDCProviderClient.formEncode($0.0) + "=" + OIDCProviderClient.formEncode($0.1) }
            .joined(separator: "&")
    }

    /// Whether `state` is an acceptable client state: 1 to 256 visible ASCII characters that
    /// need no escaping in a URL beyond form encoding.
    static func isAcceptableState(_ state: String) -> Bool {
        (1...256).contains(state.utf8.count) && state.utf8.allSatisfy(PKCE.isUnreserved)
    }
}
