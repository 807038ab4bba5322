import NotesCore

/// `/healthz`, `/v1/limits` and `/v1/openapi.json`: what anyone may ask without signing in.
struct MetaController: Sendable {
    let limits: ServerLimits

    func register(in router: inout Router) {
        router.add("GET", "/healthz", access: .open) { _ in
            .now(.wire(["status": "ok", "version": NotesVersion.current]))
        }
        router.add("GET", "/v1/limits", access: .open) { _ in .now(.wire(limits)) }
        router.add("GET", "/v1/openapi.json", access: .open) { _ in
            .now(HTTPResponse(status: 200, headers: ["Content-Type": HTTPResponse.jsonContentType], body: Array(OpenAPIDocument.json.utf8)))
        }
    }
}
