/// The server's one XML reader: libxml2's `xmlTextReader` (`LibXML2`) walked over a document in
/// memory, reported as `XMLEvent`s with every name resolved to its namespace.
///
/// Only what a request body or a storage service's answer needs is read, and nothing that lets
/// a hostile document reach out or blow up: no network (`XML_PARSE_NONET`), no entity
/// substitution, no external DTD loaded, none of libxml2's size limits lifted (never
/// `XML_PARSE_HUGE`), and a document type declaration is refused, so no entity ever reaches
/// what is read (libxml2's own limits bound the work of checking one: a billion-laughs body
/// is an error). A document that is not well-formed, not namespace-well-formed, or nested
/// deeper than asked is an `XMLReadError`, as is a machine without libxml2.
enum XMLReader {
    /// `XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING` (`parser.h`): no network,
    /// and no report printed to stderr (a failure is returned, not told).
    static let options: Int32 = 1 << 11 | 1 << 5 | 1 << 6

    /// Reads `document`, handing each event to `visit` as it is read.
    /// - Parameters:
    ///   - maxDepth: the deepest nesting of elements accepted.
    ///   - library: the libxml2 to read with (the process's own unless a test says otherwise).
    /// - Throws: `XMLReadError`; the events already handed to `visit` are then not a whole document.
    static func read(_ document: [UInt8], maxDepth: Int, library: Result<LibXML2, XMLReadError> = LibXML2.shared,
                     _ visit: (XMLEvent) -> Void) throws(XMLReadError) {
        let xml = try library.get()
        guard !document.isEmpty, document.count <= Int(Int32.max) else { throw .notWellFormed }
        // libxml2 reads the bytes where they are, so the reader lives and dies inside this scope.
        let outcome = document.withUnsafeBytes { bytes -> Result<Void, XMLReadError> in
            let start = bytes.baseAddress!.assumingMemoryBound(to: CChar.self)
            guard let reader = xml.readerForMemory(start, Int32(bytes.count), nil, nil, options) else { return .failure(.notWellFormed) }
            defer { xml.free(reader) }
            // Errors reach `tallyNamespaceError` rather than libxml2's default, which prints them.
            var namespaceErrors: Int32 = 0
            return withUnsafeMutablePointer(to: &namespaceErrors) { tally in
                xml.setStructuredErrorHandler(reader, tallyNamespaceError, UnsafeMutableRawPointer(tally))
                defer { xml.setStructuredErrorHandler(reader, nil, nil) }
                return Result { () throws(XMLReadError) in try walk(reader, with: xml, maxDepth: maxDepth, namespaceErrors: tally, visit) }
            }
        }
        try outcome.get()
    }

    /// Counts libxml2's namespace errors (`XML_NS_ERR_*`, 200–205: an undefined prefix, a prefix
    /// bound to the empty name, ...), which it reports without stopping; its other errors end the
    /// read themselves, and its warnings are not errors of the document.
    private static let tallyNamespaceError: LibXML2.ErrorHandler = { tally, error in
        guard let tally, let error else { return }
        // `xmlError` begins `int domain; int code;`.
        let code = error.load(fromByteOffset: MemoryLayout<Int32>.size, as: Int32.self)
        if (200...205).contains(code) { tally.assumingMemoryBound(to: Int32.self).pointee += 1 }
    }

    // `xmlReaderTypes` (`xmlreader.h`).
    private static let element: Int32 = 1, text: Int32 = 3, cdata: Int32 = 4, entityReference: Int32 = 5, entity: Int32 = 6
    private static let documentType: Int32 = 10, notation: Int32 = 12, whitespace: Int32 = 13, significantWhitespace: Int32 = 14
    private static let endElement: Int32 = 15

    private static func walk(_ reader: LibXML2.Reader, with xml: LibXML2, maxDepth: Int, namespaceErrors: UnsafeMutablePointer<Int32>,
                             _ visit: (XMLEvent) -> Void) throws(XMLReadError) {
        var depth = 0
        while true {
            let status = xml.read(reader)
            guard namespaceErrors.pointee == 0 else { throw .notNamespaceWellFormed }
            if status == 0 { return }
            guard status == 1 else { throw .notWellFormed }
            switch xml.nodeType(reader) {
            case element:
                guard depth < maxDepth else { throw .tooDeep(limit: maxDepth) }
                // Asked before the attributes are visited: on an attribute libxml2 answers for it.
                let isEmpty = xml.isEmptyElement(reader) == 1
                let name = resolvedName(reader, with: xml)
                let attributes = self.attributes(reader, with: xml)
                visit(.start(name, attributes: attributes))
                if isEmpty { visit(.end) } else { depth += 1 }
            case endElement:
                depth -= 1
                visit(.end)
            case text, cdata, whitespace, significantWhitespace:
                visit(.text(string(xml.value(reader))))
            case documentType, entityReference, entity, notation:
                throw .documentTypeRefused
            default:
                continue  // comments and processing instructions carry nothing read here
            }
        }
    }

    /// The current element's attributes, its namespace declarations left out.
    private static func attributes(_ reader: LibXML2.Reader, with xml: LibXML2) -> [XMLAttribute] {
        var attributes: [XMLAttribute] = []
        defer { _ = xml.moveToElement(reader) }
        while xml.moveToNextAttribute(reader) == 1 {
            guard xml.isNamespaceDeclaration(reader) != 1 else { continue }
            attributes.append(XMLAttribute(name: resolvedName(reader, with: xml), value: string(xml.value(reader))))
        }
        return attributes
    }

    /// The name of the node the reader is on.
    private static func resolvedName(_ reader: LibXML2.Reader, with xml: LibXML2) -> XMLName {
        XMLName(namespace: string(xml.namespaceURI(reader)), localName: string(xml.localName(reader)),
                qualifiedName: string(xml.qualifiedName(reader)))
    }

    private static func string(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0) } ?? ""
    }
}
