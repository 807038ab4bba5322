import NotesCore

/// `/`, `/healthz`, `/v1/limits` and `/v1/openapi.json`: what anyone may ask without signing in.
struct MetaController: Sendable {
    let limits: ServerLimits
    /// Asks an object store whether it answers, for `/healthz`; nil for a store beside the database.
    var contentStore: ContentStoreProbe? = nil

    func register(in router: inout Router) {
        router.add("GET", "/", access: .open) { _ in
            .now(HTTPResponse(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Self.homePage))
        }
        router.add("GET", "/healthz", access: .open) { _ in
            // Liveness: 200 while this process serves, with the content store's state beside it.
            .now(.wire(["status": "ok", "version": NotesVersion.current,
                        "content_store": contentStore.map { $0.isReachable ? "ok" : "unreachable" } ?? "ok"]))
        }
        router.add("GET", "/v1/limits", access: .open) { _ in .now(.wire(limits)) }
        router.add("GET", "/v1/openapi.json", access: .open) { _ in
            .now(HTTPResponse(status: 200, headers: ["Content-Type": HTTPResponse.jsonContentType], body: Array(OpenAPIDocument.json.utf8)))
        }
    }

    /// What a browser pointed at the server shows: which product this is and where its API is
    /// described (the web app will take this place).
    private static let homePage = Array(HTMLPage(title: "Notes", bodyHTML: """
        <h1>Notes</h1>
        <p>This is a Notes server (version \(NotesVersion.current)): Markdown notes kept in sync by the
        <code>notes</code> command-line client.</p>
        <p>The HTTP API is described by its <a href="/v1/openapi.json">OpenAPI document</a>.</p>
        """, allowsScripts: false).render().utf8)
}
