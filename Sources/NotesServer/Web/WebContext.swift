import NotesCore

/// A web request matched to a page: the request, its path parameters, the decoded form, and the
/// signed-in session when the page needs one.
struct WebContext: Sendable {
    let request: HTTPRequest
    let parameters: [String: String]
    let form: WebForm
    /// Set for every page that needs a signed-in user.
    let session: BrowserSession?
    /// The file of a `multipart/form-data` post (an upload), if it carried one.
    var file: WebUpload? = nil
    /// The shared space the page is in (`/s/<id>/…`); nil in the account's own space. The
    /// session then acts in the space: its `userID` is the space's.
    var space: WebSpace? = nil
    /// The spaces the signed-in account can read, for the switcher.
    var spaces: [SpaceResource] = []

    /// Whether the reader may change what the page shows: always in the personal space, only
    /// for the owner and editors in a shared one. A control that changes something is left out
    /// of the page when this is false, and its POST is refused (`WebApp`).
    var writes: Bool { space?.writes ?? true }

    /// The signed-in session; pages registered as `.signedIn` always have one.
    func signedIn() throws(HTTPError) -> BrowserSession {
        guard let session else { throw HTTPError(401, code: "unauthenticated", message: "Sign in to see this page.") }
        return session
    }

    /// The session's CSRF token, for the forms a page shows.
    var csrfToken: String {
        session.map { WebSecurity.csrfToken(forSecret: $0.cookieSecret) } ?? ""
    }

    /// The layout for a page of the signed-in user.
    func layout(_ title: String, _ section: WebLayout.Section = .none) -> WebLayout {
        WebLayout(title: title, section: section, viewer: session.map { .init(username: $0.username, csrfToken: csrfToken) },
                  space: space, spaces: spaces)
    }

    /// The note id in `:id`; 404 for anything that is not one (a page, not an API error).
    func noteID() throws(HTTPError) -> NoteID {
        guard let raw = parameters["id"], let id = NoteID(raw) else { throw HTTPError.notFound("There is no such note.") }
        return id
    }

    /// A whole number in the form field `name`, or 400.
    func formInt(_ name: String) throws(HTTPError) -> Int64 {
        guard let raw = form[name], let value = Int64(raw) else {
            throw HTTPError.badRequest("The form is missing its \(name) field; reload the page and try again.")
        }
        return value
    }

    /// The form's text field `name` with the browser's CRLF line breaks turned back into the
    /// note's own: a note written with `\n` stays byte-exact when edited in a browser.
    func formText(_ name: String, likeLinesOf original: String? = nil) -> String {
        let text = form[name] ?? ""
        if let original, original.contains("\r\n") { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\n")
    }
}
