import NotesCore

/// The building blocks the parts of the OpenAPI document share: references, JSON bodies, and
/// operations that list the general answers their access implies, so each path states only
/// what is particular to it.
extension OpenAPIDocument {
    /// Who may call an operation; with `writes`, it decides the general answers it lists.
    enum Access: Sendable {
        /// No token needed (`security: []`): 400, 413, 429 and the default error.
        case anyone
        /// Any valid bearer token: also 401.
        case signedIn
        /// A token with the write scope: also 401, and 403 `insufficient_scope`.
        case writeScope
    }

    /// Operation `id`: its summary, parameters and body, the answers particular to it, and the
    /// general ones for `access`; an operation that `writes` also lists 503 and 507 (storage
    /// unavailable or full). An answer given in `responses` replaces the general one of its status.
    static func operation(_ id: String, tag: String, access: Access, writes: Bool = false, summary: String,
                          description: String? = nil, parameters: [OpenAPIValue] = [], requestBody: OpenAPIValue? = nil,
                          responses: OpenAPIValue) -> OpenAPIValue {
        var fields: OpenAPIValue.Fields = [
            ("operationId", .string(id)), ("tags", [.string(tag)]), ("summary", .string(summary)),
        ]
        if access == .anyone { fields.append(("security", [])) }
        if let description { fields.append(("description", .string(description))) }
        if !parameters.isEmpty { fields.append(("parameters", .array(parameters))) }
        if let requestBody { fields.append(("requestBody", requestBody)) }
        var general: OpenAPIValue.Fields = [
            ("400", response("BadRequest")), ("413", response("BodyTooLarge")),
            ("429", response("TooManyRequests")), ("default", response("Error")),
        ]
        if access != .anyone { general.append(("401", response("Unauthorized"))) }
        if access == .writeScope { general.append(("403", response("Forbidden"))) }
        if writes { general += [("503", response("StorageUnavailable")), ("507", response("InsufficientStorage"))] }
        guard case .object(let particular) = responses else {
            preconditionFailure("the responses of \(id) are not an object")
        }
        let statuses = Set(particular.map(\.key))
        let answers = (particular + general.filter { !statuses.contains($0.key) })
            .sorted { order($0.key) < order($1.key) }
        fields.append(("responses", .object(answers)))
        return .object(fields)
    }

    /// Statuses in numeric order, `default` last.
    private static func order(_ status: String) -> Int { Int(status) ?? 1000 }

    /// Where a parameter is sent.
    enum ParameterLocation: String, Sendable {
        case path, query, header
    }

    /// A parameter definition; path parameters are always required.
    static func parameter(_ name: String, in location: ParameterLocation, required: Bool = false,
                          description: String, schema: OpenAPIValue) -> OpenAPIValue {
        ["name": .string(name), "in": .string(location.rawValue), "required": .bool(required || location == .path),
         "description": .string(description), "schema": schema]
    }

    /// A reference to a shared parameter.
    static func parameter(_ name: String) -> OpenAPIValue { ["$ref": .string("#/components/parameters/\(name)")] }
    /// A reference to a schema.
    static func schema(_ name: String) -> OpenAPIValue { ["$ref": .string("#/components/schemas/\(name)")] }
    /// A reference to a shared answer.
    static func response(_ name: String) -> OpenAPIValue { ["$ref": .string("#/components/responses/\(name)")] }
    /// A reference to a shared header.
    static func header(_ name: String) -> OpenAPIValue { ["$ref": .string("#/components/headers/\(name)")] }

    /// A JSON body (`content`) of `schema`.
    static func json(_ schema: OpenAPIValue) -> OpenAPIValue { ["application/json": ["schema": schema]] }

    /// An answer `description`d, with a JSON body of `schema` (if any) and `headers`.
    static func answer(_ description: String, _ schema: OpenAPIValue? = nil,
                       headers: OpenAPIValue? = nil) -> OpenAPIValue {
        var fields: OpenAPIValue.Fields = [("description", .string(description))]
        if let headers { fields.append(("headers", headers)) }
        if let schema { fields.append(("content", json(schema))) }
        return .object(fields)
    }

    /// An answer that carries a secret (tokens, codes, a link shown once): `Cache-Control:
    /// no-store`, so no cache on the way keeps it.
    static func secretAnswer(_ description: String, _ schema: OpenAPIValue) -> OpenAPIValue {
        answer(description, schema, headers: ["Cache-Control": header("CacheControl")])
    }

    /// An error answer: `description` and the error body.
    static func errorAnswer(_ description: String, headers: OpenAPIValue? = nil) -> OpenAPIValue {
        answer(description, schema("Error"), headers: headers)
    }
}
