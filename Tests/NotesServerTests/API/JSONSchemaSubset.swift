import Foundation

/// Any JSON value, decoded strictly (a number is never a Bool), for checking answers and the
/// OpenAPI document without caring about Swift types.
indirect enum JSONValue: Decodable, Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    /// Parses JSON text; keys are kept exactly as written.
    static func parse(_ data: Data) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: data) }

    subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
}

/// The small part of JSON Schema (as OpenAPI 3.0 uses it) that catches a renamed, missing or
/// mistyped field: `$ref`, `allOf`, `type`, `nullable`, `enum`, `required`, `properties`, `items`.
///
/// Objects whose schema lists `properties` may hold no other keys: the document must describe
/// every field the server sends.
struct SchemaChecker {
    let document: JSONValue

    /// The node a local `$ref` (`#/components/...`) points at.
    func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: JSONValue? = document
        for key in reference.dropFirst(2).split(separator: "/") { node = node?[String(key)] }
        return node
    }

    /// Every way `value` departs from `schema`, each prefixed with where (`$.notes[0].rev`).
    func problems(_ value: JSONValue, against schema: JSONValue, at location: String = "$") -> [String] {
        if let reference = schema["$ref"]?.string {
            guard let target = resolve(reference) else { return ["\(location): unresolved \(reference)"] }
            return problems(value, against: target, at: location)
        }
        if value == .null {
            return schema["nullable"] == .bool(true) ? [] : ["\(location): null, but the schema is not nullable"]
        }
        var found: [String] = []
        for part in schema["allOf"]?.array ?? [] { found += problems(value, against: part, at: location) }
        if let type = schema["type"]?.string, !Self.matches(value, type: type) {
            return found + ["\(location): expected \(type), got \(value)"]
        }
        if let allowed = schema["enum"]?.array, !allowed.contains(value) {
            found.append("\(location): \(value) is not one of \(allowed)")
        }
        if case .object(let fields) = value {
            for case .string(let name) in schema["required"]?.array ?? [] where fields[name] == nil {
                found.append("\(location): missing required \"\(name)\"")
            }
            if let properties = schema["properties"]?.object {
                for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
                    if let fieldSchema = properties[name] {
                        found += problems(field, against: fieldSchema, at: "\(location).\(name)")
                    } else {
                        found.append("\(location): \"\(name)\" is not in the schema")
                    }
                }
            }
        }
        if case .array(let items) = value, let itemSchema = schema["items"] {
            for (index, item) in items.enumerated() { found += problems(item, against: itemSchema, at: "\(location)[\(index)]") }
        }
        return found
    }

    private static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("integer", .integer),
             ("number", .integer), ("number", .number): true
        default: false
        }
    }
}
