/// One step of an XML document as `XMLReader` reports it, in document order.
enum XMLEvent: Sendable, Equatable {
    /// An element begins, with its attributes (namespace declarations left out: they are
    /// already resolved into every name).
    case start(XMLName, attributes: [XMLAttribute])
    /// Character data inside an element: text, whitespace or a CDATA section, with character
    /// and predefined entity references decoded.
    case text(String)
    /// The element begun last ends; an empty element (`<a/>`) ends right after it begins.
    case end
}

/// An element's or attribute's name, resolved to its namespace.
struct XMLName: Sendable, Equatable {
    /// The namespace name (URI), or "" for a name in no namespace.
    let namespace: String
    /// The name without its prefix.
    let localName: String
    /// The name as written, prefix included (`D:prop`).
    let qualifiedName: String
}

/// An attribute of an element.
struct XMLAttribute: Sendable, Equatable {
    let name: XMLName
    /// The value, references decoded.
    let value: String
}
