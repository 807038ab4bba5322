import Foundation
import NotesCore

/// The web app's defences that are not the session itself: the response headers every page
/// carries, CSRF tokens and the same-origin check that every state-changing request passes.
enum WebSecurity {
    /// No inline script, no eval, no framing; scripts, styles, fonts (KaTeX's) and fetches only
    /// from this server. Images may come from elsewhere over HTTPS (a note may embed one), as the
    /// API's rendered pages allow. KaTeX sizes what it typesets through the DOM's style
    /// properties, which `style-src` does not govern, so no inline style is allowed either.
    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "font-src 'self'", "img-src 'self' data: https:",
        "connect-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'",
    ].joined(separator: "; ")

    /// Adds the headers every web answer carries; `cacheable` only for versioned assets.
    static func secure(_ response: inout HTTPResponse, cacheable: Bool = false) {
        response.headers["Content-Security-Policy"] = contentSecurityPolicy
        response.headers["Referrer-Policy"] = "same-origin"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Cross-Origin-Opener-Policy"] = "same-origin"
        if !cacheable { response.headers["Cache-Control"] = "no-store" }
    }

    /// The CSRF token of the session (or sign-in form) whose cookie holds `secret`: a keyed hash
    /// of the secret, so it is per session, needs no storage, and reveals nothing of the cookie.
    static func csrfToken(forSecret secret: String) -> String {
        Base64URL.encode(SecretBox.key(fromSecret: secret, context: "notes web csrf v1"))
    }

    /// Whether the form's `csrf` field is the token of `secret`, compared in constant time.
    static func csrfMatches(_ presented: String?, secret: String) -> Bool {
        guard let presented else { return false }
        return ConstantTime.equal(Array(presented.utf8), Array(csrfToken(forSecret: secret).utf8))
    }

    /// Whether the request says it comes from a page of this same site: its `Origin` (or, when
    /// a browser sent none, its `Referer`) names the host the request was sent to. A request
    /// with neither, or with `Origin: null` (a sandboxed or privacy-stripped context), is refused.
    /// The scheme is not compared: behind a TLS-terminating proxy not configured as trusted,
    /// the server cannot know it, and the host is what tells another site apart.
    static func isSameOrigin(_ request: HTTPRequest) -> Bool {
        guard let host = request.headers["Host"]?.lowercased(), !host.isEmpty else { return false }
        guard let source = request.headers["Origin"] ?? request.headers["Referer"], source != "null" else { return false }
        guard let separator = source.range(of: "://") else { return false }
        let scheme = source[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return false }
        let authority = source[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return authority.lowercased() == host
    }
}

/// The cookies the web app sets and reads.
enum WebCookie {
    /// The browser session (`HttpOnly; SameSite=Lax; Path=/`, `Secure` over HTTPS). No
    /// `Max-Age`: it ends when the browser closes, and the server ends it sooner when idle.
    static let session = "notes_session"
    /// The sign-in form's own secret, which its CSRF token is derived from (there is no session yet).
    static let signIn = "notes_signin"

    /// The value of cookie `name` in the request, if sent once.
    static func value(_ name: String, in request: HTTPRequest) -> String? {
        for header in request.headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { continue }
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// A `Set-Cookie` value for `name=value` with the web app's flags.
    static func set(_ name: String, _ value: String, secure: Bool, path: String = "/", maxAge: Int? = nil) -> String {
        var parts = ["\(name)=\(value)", "Path=\(path)", "HttpOnly", "SameSite=Lax"]
        if let maxAge { parts.append("Max-Age=\(maxAge)") }
        if secure { parts.append("Secure") }
        return parts.joined(separator: "; ")
    }

    /// A `Set-Cookie` value that makes the browser forget `name`.
    static func clear(_ name: String, secure: Bool, path: String = "/") -> String {
        set(name, "", secure: secure, path: path, maxAge: 0)
    }
}
