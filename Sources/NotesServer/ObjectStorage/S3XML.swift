import Foundation

/// The few values this server reads from an S3 answer's XML (`ListBucketResult`,
/// `InitiateMultipartUploadResult`, `CopyPartResult`, `Error`): the text of elements known by
/// their local name, in document order, read by the server's `XMLReader`. An answer that is not
/// well-formed XML holds no values.
enum S3XML {
    /// The largest answer read, in bytes: a listing page of 1,000 keys is about 300 KiB.
    static let maxDocumentBytes = 16 * 1024 * 1024
    /// The deepest nesting read: S3's answers are three levels deep.
    static let maxDepth = 16

    /// The text of every `<name>` element, in document order.
    static func values(of name: String, in document: String) -> [String] {
        elements(named: name, in: document).map(\.text)
    }

    /// Each `<name>` element as XML (a block to search further with `values` and `value`).
    static func blocks(of name: String, in document: String) -> [String] {
        elements(named: name, in: document).map(\.xml)
    }

    /// The first `<name>` element's text, or nil.
    static func value(of name: String, in document: String) -> String? {
        values(of: name, in: document).first
    }

    /// `text` escaped for an element's content.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// An element found: the text directly inside it, and itself written again as XML (local
    /// names only, so it reads alone).
    private struct Found {
        var text = ""
        var xml = ""
    }

    private static func elements(named name: String, in document: String) -> [Found] {
        let bytes = Array(document.utf8)
        guard bytes.count <= maxDocumentBytes else { return [] }
        var found: [Found] = []
        var current: Found?
        var names: [String] = []  // the open elements, outermost first
        var depthFound = 0  // the depth of `current`'s element
        do {
            try XMLReader.read(bytes, maxDepth: maxDepth) { event in
                switch event {
                case .start(let element, _):
                    names.append(element.localName)
                    if current == nil, element.localName == name {
                        current = Found()
                        depthFound = names.count
                    }
                    current?.xml += "<" + element.localName + ">"
                case .text(let text):
                    if names.count == depthFound { current?.text += text }
                    current?.xml += escape(text)
                case .end:
                    let closed = names.popLast() ?? ""
                    current?.xml += "</" + closed + ">"
                    if let done = current, names.count < depthFound {
                        found.append(done)
                        current = nil
                        depthFound = 0
                    }
                }
            }
        } catch {
            return []
        }
        return found
    }
}
