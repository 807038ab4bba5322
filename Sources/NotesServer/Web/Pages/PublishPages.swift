import NotesCore

/// Publishing a note from its page: `POST /notes/:id/publish` makes a link anyone can open
/// (`/p/<token>`) and shows it this once; `POST /notes/:id/unpublish` and the account page's
/// `POST /account/publications/:id/revoke` end it. The same `PublicationStore` as
/// `/v1/notes/{id}/publication`, so the API, the CLI and the browser see one set of links.
///
/// The server keeps only the token's digest, so after this answer the link exists nowhere but
/// in what the owner copied: the note page and the account page say that a note is published,
/// never where. Publishing again replaces the link (the old one stops working at once).
struct PublishPages: Sendable {
    let services: WebServices

    /// The lifetimes the form offers, in seconds; `nil` is "until I unpublish it".
    static let expiryChoices: [(label: String, seconds: Int?)] = [
        ("until I unpublish it", nil), ("for a day", 86_400), ("for a week", 7 * 86_400), ("for 30 days", 30 * 86_400),
    ]

    func register(in app: inout WebApp) {
        app.add("POST", "/notes/:id/publish") { context in .now(try publish(context)) }
        app.add("POST", "/notes/:id/unpublish") { context in
            let id = try context.noteID()
            try revoke(context, id)
            return .now(WebResponse.redirect(WebFormat.notePath(id)))
        }
        app.add("POST", "/account/publications/:id/revoke") { context in
            try revoke(context, try context.noteID())
            return .now(WebResponse.redirect(WebPath("/account").query([("done", "unpublished")])))
        }
    }

    /// The note page's publishing controls: "Unpublish" when the note has a live link, else a
    /// "Publish…" disclosure holding the form (expiry, search engines), which needs no script.
    static func controls(for note: NoteRecord, publication: PublicationRecord?, csrfToken: String) -> HTML {
        let page = WebFormat.notePath(note.id)
        if let publication {
            let until: HTML = publication.expiresAt.map { " until " as HTML + WebFormat.time($0) } ?? ""
            return """
                <form action="\(page.appending("unpublish"))" method="post" class="published">\
                \(WebFormat.csrfField(csrfToken))<span class="badge">Published\(until)</span> \
                <button type="submit" class="secondary">Unpublish</button></form>
                """
        }
        let options = expiryChoices.map { choice -> HTML in
            "<option value=\"\(choice.seconds.map(String.init) ?? "never")\">\(choice.label)</option>"
        }
        return """
            <details class="publish"><summary class="button secondary">Publish…</summary>
            <form action="\(page.appending("publish"))" method="post" class="popover">\(WebFormat.csrfField(csrfToken))
            <p class="hint">Anyone with the link can read this note, without an account, until it ends. The link is shown once.</p>
            <label for="publish-expiry">The link works</label>
            <select id="publish-expiry" name="expires">\(options)</select>
            <label class="check"><input type="checkbox" name="indexable" value="yes"> Allow search engines to index it</label>
            <div class="form-actions"><button type="submit">Publish</button></div>
            </form></details>
            """
    }

    /// Publishes and answers the link, this once (the page is never cached).
    private func publish(_ context: WebContext) throws -> HTTPResponse {
        let session = try context.signedIn()
        let id = try context.noteID()
        let expiry: Int?
        switch context.form["expires"] {
        case nil, "", "never": expiry = nil
        case let text?:
            guard let seconds = Int(text), (1...PublicationStore.maxLifetimeSeconds).contains(seconds) else {
                throw HTTPError(422, code: "invalid_expiry", message: "Choose how long the link works from the list; reload the note and try again.")
            }
            expiry = seconds
        }
        let record: PublicationRecord, token: String
        do {
            (record, token) = try services.publications.publish(userID: session.userID, noteID: id, expiresInSeconds: expiry,
                                                                indexable: context.form["indexable"] == "yes")
        } catch PublicationError.noteNotFound {
            throw HTTPError.notFound("There is no such note; it may have been deleted (look in the trash).")
        }
        let link = Self.absoluteURL(PublicationToken.path(for: token), request: context.request, publicURL: services.signIn.publicURL?.absoluteString)
        let title = WebFormat.title(ofPath: record.path)
        let content: HTML = """
            <div class="narrow publish-result">
            <div class="card">
            <h1>“\(name: title)” is published</h1>
            <div class="notice" role="status"><p><strong>Copy the link now:</strong> it is shown only this once. \
            Anyone who has it can read the note's current text\(record.expiresAt.map { " until " as HTML + WebFormat.time($0) } ?? " until you unpublish it").</p>
            <label for="publication-link">Link</label>
            <div class="copy-row"><input type="text" id="publication-link" value="\(link)" readonly spellcheck="false">\
            <button type="button" class="secondary" data-copy="publication-link" hidden>Copy</button></div>
            <p class="hint">\(record.indexable ? "Search engines may index it." : "Search engines are asked not to index it.") \
            To stop it, press Unpublish on the note or Revoke on your account page; publishing again makes a new link and ends this one.</p>
            </div>
            <div class="form-actions"><a class="button" href="\(WebFormat.notePath(id))">Back to the note</a>\
            <a class="button secondary" href="/account#publications-heading">Your published notes</a></div>
            </div>
            </div>
            """
        return WebResponse.page(context.layout("Published: " + title, .notes), content, status: 201)
    }

    private func revoke(_ context: WebContext, _ id: NoteID) throws {
        let session = try context.signedIn()
        guard try services.publications.revoke(userID: session.userID, noteID: id) else {
            throw HTTPError.notFound("This note is not published (the link may have expired or been revoked already).")
        }
    }

    /// `path` on this server as the reader will type it: under `--public-url` when the operator
    /// set one, else at the scheme and host this browser reached (the `Host` a same-origin form
    /// post carried, so it is the address in the owner's own address bar).
    static func absoluteURL(_ path: String, request: HTTPRequest, publicURL: String?) -> String {
        if let publicURL {
            return (publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL) + path
        }
        return (request.isSecure ? "https://" : "http://") + (request.headers["Host"] ?? "localhost") + path
    }
}
