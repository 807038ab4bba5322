#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libxml2, opened at run time on first use: the only owner of its library handle and of the C
/// functions of its `xmlTextReader` API bound from it.
///
/// Opened, not linked: Debian's libxml2 links ICU, and a process that links either maps both
/// (and, through Foundation's `XMLParser`, FoundationXML too) from its first instruction, which
/// costs the server memory it holds whether or not anyone sends XML. Loaded this way, only a
/// server that reads an XML body maps them, and only from that body on (docs/architecture.md §8).
/// Every function is bound through `dlsym` to a Swift function-pointer type written from
/// `xmlreader.h` (Debian `libxml2` 2.9.14).
///
/// Loaded once per process (`shared`) and never closed: the functions stay valid for the life
/// of the process. `xmlInitParser` runs once, here, before any reader exists, as libxml2 asks of
/// a program that parses on several threads; after it, each reader is independent.
///
/// `@unchecked Sendable`: every field is an immutable C function pointer set once in `init`;
/// the readers those functions work on are owned by one `XMLReader.read` call each.
final class LibXML2: @unchecked Sendable {
    typealias Reader = OpaquePointer
    /// `xmlStructuredErrorFunc`: the handler's argument and the error (`xmlErrorPtr`).
    typealias ErrorHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void

    /// The library, loaded on first use; the failure when this machine lacks it.
    static let shared: Result<LibXML2, XMLReadError> = load(library)

    /// The shared object, by its Debian soname.
    static let library = "libxml2.so.2"

    /// `library` opened and bound, or why it could not be.
    static func load(_ library: String) -> Result<LibXML2, XMLReadError> {
        Result { () throws(XMLReadError) -> LibXML2 in try LibXML2(library) }
    }

    let readerForMemory: @convention(c) (UnsafePointer<CChar>, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32) -> Reader?
    let read: @convention(c) (Reader) -> Int32
    let nodeType: @convention(c) (Reader) -> Int32
    let isEmptyElement: @convention(c) (Reader) -> Int32
    let localName: @convention(c) (Reader) -> UnsafePointer<CChar>?
    let qualifiedName: @convention(c) (Reader) -> UnsafePointer<CChar>?
    let namespaceURI: @convention(c) (Reader) -> UnsafePointer<CChar>?
    let value: @convention(c) (Reader) -> UnsafePointer<CChar>?
    let moveToNextAttribute: @convention(c) (Reader) -> Int32
    let moveToElement: @convention(c) (Reader) -> Int32
    let isNamespaceDeclaration: @convention(c) (Reader) -> Int32
    let setStructuredErrorHandler: @convention(c) (Reader, ErrorHandler?, UnsafeMutableRawPointer?) -> Void
    let free: @convention(c) (Reader) -> Void

    private init(_ library: String) throws(XMLReadError) {
        guard let handle = dlopen(library, RTLD_NOW | RTLD_LOCAL) else {
            throw .unavailable(dlerror().map { String(cString: $0) } ?? "unknown error")
        }
        func bind<Function>(_ name: String, as _: Function.Type) throws(XMLReadError) -> Function {
            guard let symbol = dlsym(handle, name) else { throw .unavailable("\(library) lacks \(name)") }
            return unsafeBitCast(symbol, to: Function.self)
        }
        typealias Text = @convention(c) (Reader) -> UnsafePointer<CChar>?
        typealias Number = @convention(c) (Reader) -> Int32
        readerForMemory = try bind("xmlReaderForMemory", as: (@convention(c) (UnsafePointer<CChar>, Int32, UnsafePointer<CChar>?,
                                                                                 UnsafePointer<CChar>?, Int32) -> Reader?).self)
        read = try bind("xmlTextReaderRead", as: Number.self)
        nodeType = try bind("xmlTextReaderNodeType", as: Number.self)
        isEmptyElement = try bind("xmlTextReaderIsEmptyElement", as: Number.self)
        localName = try bind("xmlTextReaderConstLocalName", as: Text.self)
        qualifiedName = try bind("xmlTextReaderConstName", as: Text.self)
        namespaceURI = try bind("xmlTextReaderConstNamespaceUri", as: Text.self)
        value = try bind("xmlTextReaderConstValue", as: Text.self)
        moveToNextAttribute = try bind("xmlTextReaderMoveToNextAttribute", as: Number.self)
        moveToElement = try bind("xmlTextReaderMoveToElement", as: Number.self)
        isNamespaceDeclaration = try bind("xmlTextReaderIsNamespaceDecl", as: Number.self)
        setStructuredErrorHandler = try bind("xmlTextReaderSetStructuredErrorHandler",
                                             as: (@convention(c) (Reader, ErrorHandler?, UnsafeMutableRawPointer?) -> Void).self)
        free = try bind("xmlFreeTextReader", as: (@convention(c) (Reader) -> Void).self)
        let initParser = try bind("xmlInitParser", as: (@convention(c) () -> Void).self)
        initParser()
    }
}
