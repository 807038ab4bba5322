import Foundation
import NotesCore
import Testing
@testable import NotesServer

/// The OpenAPI document is built from shared parts (an operation's access decides its general
/// answers): every operation uses them, none is left over, and the serialisation is valid JSON
/// that reads back as what was built.
@Suite("OpenAPI document: what the shared parts build")
struct OpenAPIStructureTests {
    static func document() throws -> JSONValue { try JSONValue.parse(Data(OpenAPIDocument.json.utf8)) }

    @Test("general answers are the shared ones; only operations open to anyone drop the bearer requirement")
    func generalAnswersAreShared() throws {
        let document = try Self.document()
        #expect(document["security"] == .array([.object(["bearerAuth": .array([])])]))
        let open: Set = ["home", "health", "live", "ready", "getLimits", "getOpenAPI", "login", "refresh", "readPublication",
                         "readPublicationAttachment", "listSignInProviders", "startCLISignIn", "startBrowserSignIn", "finishSignIn",
                         "exchangeSignInCode", "startDeviceSignIn", "readLinkedPublication", "readLinkedPublicationAttachment"]
        for (_, item) in try #require(document["paths"]?.object) {
            for (method, operation) in item.object ?? [:] where method != "parameters" {
                let id = operation["operationId"]?.string ?? "?"
                let responses = operation["responses"]
                // Sign-in says more about its 429 (the login throttle) than the shared answer, and
                // published pages answer theirs as HTML.
                if !["login", "readPublication", "readPublicationAttachment", "readLinkedPublication", "readLinkedPublicationAttachment"].contains(id) {
                    #expect(responses?["429"]?["$ref"]?.string == "#/components/responses/TooManyRequests", "\(id)")
                }
                #expect(responses?["default"]?["$ref"]?.string == "#/components/responses/Error", "\(id)")
                #expect(responses?["400"] != nil && responses?["413"] != nil, "\(id)")
                #expect((operation["security"] == .array([])) == open.contains(id), "\(id)")
                if !open.contains(id) && id != "createToken" {
                    #expect(responses?["401"]?["$ref"]?.string == "#/components/responses/Unauthorized", "\(id)")
                }
            }
        }
    }

    @Test("every shared component (schema, parameter, answer, header) is referenced from the document")
    func everyComponentIsUsed() throws {
        let document = try Self.document()
        var references: Set<String> = []
        func collect(_ node: JSONValue) {
            switch node {
            case .object(let fields):
                if let reference = fields["$ref"]?.string { references.insert(reference) }
                fields.values.forEach(collect)
            case .array(let items): items.forEach(collect)
            default: break
            }
        }
        collect(document)
        let components = try #require(document["components"]?.object)
        var unused: [String] = []
        for kind in ["schemas", "parameters", "responses", "headers"] {
            let names = try #require(components[kind]?.object, "components.\(kind)").keys
            #expect(!names.isEmpty, "components.\(kind)")
            unused += names.map { "#/components/\(kind)/\($0)" }.filter { !references.contains($0) }
        }
        #expect(unused.sorted() == [], "defined but never referenced: a part the builders stopped using")
    }

    @Test("the served text is the built document: strings with quotes, backslashes and control characters survive")
    func serialisationReadsBack() throws {
        let tricky: OpenAPIValue = ["a\"b": ["x\\y", "line\nbreak\u{1}", 42, true, [], [:]], "é": "ünïcødé"]
        let parsed = try JSONValue.parse(Data(tricky.jsonText.utf8))
        #expect(parsed == .object(["a\"b": .array([.string("x\\y"), .string("line\nbreak\u{1}"), .integer(42), .bool(true),
                                                     .array([]), .object([:])]), "é": .string("ünïcødé")]))
        #expect(OpenAPIDocument.json.split(separator: "\n").allSatisfy { !$0.hasSuffix(" ") })
    }
}
