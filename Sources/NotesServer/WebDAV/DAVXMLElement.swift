import NotesCore

/// An element of a WebDAV request body (PROPFIND, PROPPATCH, LOCK), read by the server's
/// `XMLReader` with namespaces resolved: elements are known by namespace and local name, never
/// by prefix.
///
/// Bodies are small (`DAVXMLElement.maxBodyBytes`) and bounded in depth, and the reader refuses
/// document type declarations, so no entity is expanded: a hostile body can neither read files
/// nor explode.
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
    /// - Parameter library: the libxml2 to read with (the process's own unless a test says otherwise).
    /// - Throws: 400 when the body is not well-formed XML, too deep, or carries a document type
    ///   declaration; 413 when it is too large; 501 when this server cannot load libxml2.
    static func parse(_ body: [UInt8], library: Result<LibXML2, XMLReadError> = LibXML2.shared) throws(HTTPError) -> DAVXMLElement {
        guard body.count <= maxBodyBytes else {
            throw HTTPError(413, code: "body_too_large", message: "A WebDAV request body is at most \(maxBodyBytes) bytes.")
        }
        var builder = Builder()
        do throws(XMLReadError) {
            try XMLReader.read(body, maxDepth: maxDepth, library: library) { builder.take($0) }
        } catch .unavailable {
            throw HTTPError(501, code: "xml_unavailable",
                            message: "This server cannot read XML request bodies until its operator installs libxml2.")
        } catch {
            throw HTTPError.badRequest("The request body is not well-formed XML.", code: "invalid_xml")
        }
        guard let root = builder.root else {
            throw HTTPError.badRequest("The request body is not well-formed XML.", code: "invalid_xml")
        }
        return root
    }

    /// Builds the tree from the reader's events.
    private struct Builder {
        var stack: [DAVXMLElement] = []
        var root: DAVXMLElement?

        mutating func take(_ event: XMLEvent) {
            switch event {
            case .start(let name, let attributes):
                var element = DAVXMLElement(namespace: name.namespace, name: name.localName)
                for attribute in attributes { element.attributes[attribute.name.qualifiedName] = attribute.value }
                stack.append(element)
            case .text(let text):
                guard !stack.isEmpty else { return }
                stack[stack.count - 1].text += text
            case .end:
                guard let element = stack.popLast() else { return }
                if stack.isEmpty {
                    root = element
                } else {
                    stack[stack.count - 1].children.append(element)
                }
            }
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
