/// Why an XML document was not read.
enum XMLReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libxml2 could not be opened or lacks a function the reader binds (the loader's message).
    case unavailable(String)
    /// The document is not well-formed XML (or is empty).
    case notWellFormed
    /// The document is well-formed but not namespace-well-formed (Namespaces in XML 1.0): a
    /// prefix bound to the empty name, or a prefixed name whose prefix names no namespace.
    case notNamespaceWellFormed
    /// The document carries a document type declaration. None is read: its entities could
    /// reach files or the network, or expand without bound.
    case documentTypeRefused
    /// The elements nest deeper than the reader was told to accept.
    case tooDeep(limit: Int)

    var description: String {
        switch self {
        case .unavailable(let reason):
            "libxml2 could not be loaded (\(reason)): install Debian's libxml2"
        case .notWellFormed:
            "the document is not well-formed XML"
        case .notNamespaceWellFormed:
            "the document uses a namespace prefix bound to no namespace"
        case .documentTypeRefused:
            "the document carries a document type declaration, which is not read"
        case .tooDeep(let limit):
            "the document nests elements deeper than \(limit)"
        }
    }
}
