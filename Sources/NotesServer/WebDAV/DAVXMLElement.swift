#if canImport(FoundationXML)
import FoundationXML
#endif
import Foundation
import NotesCore

/// An element of a WebDAV request body (PROPFIND, PROPPATCH, LOCK), read by Foundation's
/// `XMLParser` (libxml2 underneath) with namespaces resolved: elements are known by namespace
/// and local name, never by prefix.
///
/// Bodies are small (`DAVXMLElement.maxBodyBytes`) and bounded in depth, and the parser is told
/// not to resolve external entities, so a hostile body can neither read files nor explode.
struct DAVXMLElement: Sendable, Equatable {
    /// The largest request body WebDAV parses.
    static let maxBodyBytes = 1024 * 1024
    /// The deepest nesting accepted.
    static let maxDepth = 64

    let namespace: String
    let name: String
    var attributes: [String: String] = [:]
    var children: [DAVXMLElement] = []
    /// The text directly inside the element, joined.
    var text = ""

    /// The first child with this namespace and name.
    func child(_ namespace: String, _ name: String) -> DAVXMLElement? {
        children.first { $0.namespace == namespace && $0.name == name }
    }

    /// Whether this element is `name` in `namespace`.
    func isNamed(_ namespace: String, _ name: String) -> Bool {
        self.namespace == namespace && self.name == name
    }

    /// The element written back as XML with every namespace declared where it is used, so it
    /// stands alone (a dead property's value, a lock's owner).
    var xml: String {
        var out = ""
        write(into: &out, inheritedNamespace: nil)
        return out
    }

    /// The element's children and text as XML, without the element itself.
    var innerXML: String {
        var out = DAVXMLText.escape(text)
        for child in children { child.write(into: &out, inheritedNamespace: nil) }
        return out
    }

    private func write(into out: inout String, inheritedNamespace: String?) {
        out += "<" + name
        if namespace != inheritedNamespace { out += " xmlns=\"" + DAVXMLText.escape(namespace) + "\"" }
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) where !key.hasPrefix("xmlns") {
            out += " " + key + "=\"" + DAVXMLText.escape(value) + "\""
        }
        guard !children.isEmpty || !text.isEmpty else {
            out += "/>"
            return
        }
        out += ">" + DAVXMLText.escape(text)
        for child in children { child.write(into: &out, inheritedNamespace: namespace) }
        out += "</" + name + ">"
    }

    /// The root element of `body`.
    /// - Throws: 400 when the body is not well-formed XML, too deep, or too large.
    static func parse(_ body: [UInt8]) throws(HTTPError) -> DAVXMLElement {
        guard body.count <= maxBodyBytes else {
            throw HTTPError(413, code: "body_too_large", message: "A WebDAV request body is at most \(maxBodyBytes) bytes.")
        }
        let reader = Reader()
        let parser = XMLParser(data: Data(body))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        guard parser.parse(), !reader.tooDeep, !reader.emptyPrefix, let root = reader.root else {
            throw HTTPError.badRequest("The request body is not well-formed XML.", code: "invalid_xml")
        }
        return root
    }

    /// Builds the tree as the parser reports it.
    private final class Reader: NSObject, XMLParserDelegate {
        var stack: [DAVXMLElement] = []
        var root: DAVXMLElement?
        var tooDeep = false
        /// A prefix bound to the empty name (`xmlns:a=""`), which Namespaces in XML 1.0 forbids
        /// and libxml2 only warns about.
        var emptyPrefix = false

        func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
            guard !prefix.isEmpty, namespaceURI.isEmpty else { return }
            emptyPrefix = true
            parser.abortParsing()
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String]) {
            guard stack.count < DAVXMLElement.maxDepth else {
                tooDeep = true
                parser.abortParsing()
                return
            }
            // A prefixed name whose prefix names no namespace (`<a:b xmlns:a="">`): not
            // namespace-well-formed, though libxml2 only warns.
            if (namespaceURI ?? "").isEmpty && ((qualifiedName ?? elementName).contains(":") || elementName.contains(":")) {
                emptyPrefix = true
                parser.abortParsing()
                return
            }
            stack.append(DAVXMLElement(namespace: namespaceURI ?? "", name: elementName, attributes: attributes))
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard let element = stack.popLast() else { return }
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, foundCDATA block: Data) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].text += String(decoding: block, as: UTF8.self)
        }
    }
}

/// Escaping for XML text and attribute values.
enum DAVXMLText {
    /// `text` escaped as HTML escapes it (`&`, `<`, `>`, `"`, `'`: the same references in XML),
    /// without the characters XML 1.0 cannot hold (control characters but tab and line ends,
    /// U+FFFE, U+FFFF).
    static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isRefused) else { return HTMLEscaping.escape(text) }
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: text.unicodeScalars.filter { !isRefused($0) })
        return HTMLEscaping.escape(String(kept))
    }

    private static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r") || scalar.value == 0xFFFE || scalar.value == 0xFFFF
    }
}
