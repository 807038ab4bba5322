/// The OpenAPI 3 description of the v1 API, served at `/v1/openapi.json`.
enum OpenAPIDocument {
    static let json = """
        {"openapi":"3.0.3","info":{"title":"Notes API","version":"1"},"paths":{}}
        """
}
