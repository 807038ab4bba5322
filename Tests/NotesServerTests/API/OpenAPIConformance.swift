import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// Checks one real answer of the live server against the OpenAPI document's promise for
/// `method path status`: the status is listed, the documented headers are present, and the
/// body fits the documented schema.
struct OpenAPIConformance {
    let document: JSONValue
    var checker: SchemaChecker { SchemaChecker(document: document) }

    /// The document the server publishes (the same text as `/v1/openapi.json`).
    static func published() throws -> OpenAPIConformance {
        OpenAPIConformance(document: try JSONValue.parse(Data(OpenAPIDocument.json.utf8)))
    }

    /// Records an issue for every way `response` departs from the document; with `status` (and
    /// `code`), also unless the answer is that status (with that error code), so a check cannot
    /// pass on an answer the test did not mean to provoke.
    func check(_ response: TestAPIResponse, _ method: String, _ path: String, status: Int? = nil, code: String? = nil,
               sourceLocation: SourceLocation = #_sourceLocation) {
        let label = "\(method) \(path) \(response.status)"
        if let status {
            #expect(response.status == status, "\(label): expected \(status): \(response.text)", sourceLocation: sourceLocation)
        }
        if let code {
            #expect(response.errorCode == code, "\(label): expected \(code): \(response.text)", sourceLocation: sourceLocation)
        }
        guard let operation = document["paths"]?[path]?[method.lowercased()] else {
            Issue.record("\(method) \(path) is not documented", sourceLocation: sourceLocation)
            return
        }
        guard var documented = operation["responses"]?[String(response.status)] else {
            Issue.record("\(label) is not documented: \(response.text)", sourceLocation: sourceLocation)
            return
        }
        if let reference = documented["$ref"]?.string, let target = checker.resolve(reference) { documented = target }
        // A documented header must be present, unless the document says `"required": false`.
        for (name, header) in documented["headers"]?.object ?? [:] where header["required"] != .bool(false) {
            #expect(response.header(name) != nil, "\(label) lacks \(name)", sourceLocation: sourceLocation)
        }
        guard let content = documented["content"]?.object else {
            #expect(response.body.isEmpty, "\(label) has an undocumented body", sourceLocation: sourceLocation)
            return
        }
        let mediaType = (response.header("Content-Type") ?? "").split(separator: ";").first.map(String.init) ?? ""
        guard let schema = content[mediaType]?["schema"] else {
            Issue.record("\(label) answers \(mediaType), not documented", sourceLocation: sourceLocation)
            return
        }
        if mediaType == "application/json" {
            guard let body = try? JSONValue.parse(response.body) else {
                Issue.record("\(label) body is not JSON", sourceLocation: sourceLocation)
                return
            }
            #expect(checker.problems(body, against: schema) == [], "\(label)", sourceLocation: sourceLocation)
        }
    }
}
