import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// The server's one XML reader (libxml2's xmlTextReader, opened at run time): names resolved to
/// namespaces, text and CDATA decoded, and every document that is not well-formed, not
/// namespace-well-formed, too deep or carrying a document type declaration refused, so no
/// entity ever reaches a file or expands.
@Suite("XML reader")
struct XMLReaderTests {
    /// The events of `document`, consecutive text joined, or the error that ended it.
    static func events(_ document: String, maxDepth: Int = 64) throws(XMLReadError) -> [XMLEvent] {
        var events: [XMLEvent] = []
        try XMLReader.read(Array(document.utf8), maxDepth: maxDepth) { event in
            if case .text(let more) = event, case .text(let before)? = events.last {
                events[events.count - 1] = .text(before + more)
            } else {
                events.append(event)
            }
        }
        return events
    }

    static func error(_ document: String, maxDepth: Int = 64) -> XMLReadError? {
        do {
            _ = try events(document, maxDepth: maxDepth)
            return nil
        } catch {
            return error
        }
    }

    static func name(_ namespace: String, _ localName: String, _ qualifiedName: String? = nil) -> XMLName {
        XMLName(namespace: namespace, localName: localName, qualifiedName: qualifiedName ?? localName)
    }

    @Test("prefixed and default namespaces resolve every element and attribute name; declarations are not attributes")
    func namespacesResolve() throws {
        let document = #"""
            <?xml version="1.0" encoding="utf-8"?>
            <D:propfind xmlns:D="DAV:" xmlns="urn:default"><D:prop><plain a="1" D:b="2" xml:lang="en"/><x:y xmlns:x="urn:x"/>\#
            <none xmlns=""/></D:prop></D:propfind>
            """#
        let events = try Self.events(document)
        #expect(events == [
            .start(Self.name("DAV:", "propfind", "D:propfind"), attributes: []),
            .start(Self.name("DAV:", "prop", "D:prop"), attributes: []),
            .start(Self.name("urn:default", "plain"), attributes: [
                XMLAttribute(name: Self.name("", "a"), value: "1"),
                XMLAttribute(name: Self.name("DAV:", "b", "D:b"), value: "2"),
                XMLAttribute(name: Self.name("http://www.w3.org/XML/1998/namespace", "lang", "xml:lang"), value: "en"),
            ]),
            .end,
            .start(Self.name("urn:x", "y", "x:y"), attributes: []),
            .end,
            .start(Self.name("", "none"), attributes: []),
            .end,
            .end,
            .end,
        ])
    }

    @Test("an empty element and an element with nothing inside both begin and end, with no text")
    func emptyElements() throws {
        #expect(try Self.events("<a><b/><c></c></a>") == [
            .start(Self.name("", "a"), attributes: []),
            .start(Self.name("", "b"), attributes: []), .end,
            .start(Self.name("", "c"), attributes: []), .end,
            .end,
        ])
    }

    @Test("text arrives with predefined entities and character references decoded, CDATA as written, whitespace kept")
    func textAndCDATA() throws {
        let events = try Self.events("<a> x &amp; y &lt;&#x263A;&#34;<![CDATA[<b>&amp;</b>]]>\n</a>")
        #expect(events == [.start(Self.name("", "a"), attributes: []), .text(" x & y <☺\"<b>&amp;</b>\n"), .end])
    }

    @Test("a body that is not well-formed XML is an error, never a partial document",
          arguments: ["", "not xml", "<a>", "<a><b></a>", "<a/><b/>", "<a x='1' x='2'/>", "<a>&unknown;</a>", "\u{0}<a/>"])
    func malformedRefused(document: String) {
        #expect(Self.error(document) == .notWellFormed)
    }

    @Test("a prefix bound to the empty name or bound to nothing is refused as not namespace-well-formed",
          arguments: [#"<a xmlns:p=""/>"#, "<p:a/>", #"<a p:x="1"/>"#, #"<D:a xmlns:D="DAV:"><p:b xmlns:p=""/></D:a>"#])
    func unboundPrefixesRefused(document: String) {
        #expect(Self.error(document) == .notNamespaceWellFormed)
    }

    @Test("nesting up to the limit is read; one element deeper is refused")
    func depthBounded() throws {
        func nested(_ depth: Int) -> String { String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth) }
        #expect(try Self.events(nested(8), maxDepth: 8).count == 16)
        #expect(Self.error(nested(9), maxDepth: 8) == .tooDeep(limit: 8))
        #expect(Self.error(String(repeating: "<a>", count: 100_000), maxDepth: 64) == .tooDeep(limit: 64))
    }

    @Test("a billion-laughs body is refused with an error, before any event and without expanding it")
    func billionLaughsRefused() {
        var document = #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">"#
        document += #"<!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">"#
        for level in 2...9 {
            document += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
        }
        document += "]><lolz>&lol9;</lolz>"
        var seen = 0
        let refusal = #expect(throws: XMLReadError.self) {
            try XMLReader.read(Array(document.utf8), maxDepth: 64) { _ in seen += 1 }
        }
        // libxml2 checks the entities' nesting (its amplification limit) before the declaration is
        // reported, or the declaration itself is refused: either way, nothing is read from it.
        #expect(refusal == .notWellFormed || refusal == .documentTypeRefused)
        #expect(seen == 0)
    }

    @Test("an external entity (XXE), an external parameter entity and an external DTD are refused; the file never appears")
    func externalEntitiesRefused() throws {
        let folder = try TemporaryDirectory("xml-xxe")
        defer { folder.remove() }
        let secret = folder.appending("secret.txt")
        try Data("the-secret-file-content".utf8).write(to: secret)
        let documents = [
            #"<!DOCTYPE d [<!ENTITY x SYSTEM "file://\#(secret.path)">]><d>&x;</d>"#,
            #"<!DOCTYPE d [<!ENTITY % p SYSTEM "file://\#(secret.path)"> %p;]><d/>"#,
            #"<!DOCTYPE d SYSTEM "file://\#(secret.path)"><d>&x;</d>"#,
            #"<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "http://127.0.0.1:9/x">]><d>&x;</d>"#,
        ]
        for document in documents {
            var texts: [String] = []
            #expect(throws: XMLReadError.documentTypeRefused) {
                try XMLReader.read(Array(document.utf8), maxDepth: 64) { event in texts.append("\(event)") }
            }
            #expect(!texts.joined().contains("the-secret-file-content"))
        }
    }

    @Test("a machine without libxml2 gets an error naming it, and WebDAV answers such a body 501, not a crash")
    func missingLibraryIsAnError() throws {
        let missing = LibXML2.load("libxml2-absent.so.0")
        guard case .failure(.unavailable(let reason)) = missing else {
            Issue.record("a library that does not exist loaded")
            return
        }
        #expect(reason.contains("libxml2-absent.so.0"))
        #expect(throws: XMLReadError.unavailable(reason)) { try XMLReader.read(Array("<a/>".utf8), maxDepth: 4, library: missing) { _ in } }
        #expect(throws: HTTPError(501, code: "xml_unavailable",
                                  message: "This server cannot read XML request bodies until its operator installs libxml2.")) {
            try DAVXMLElement.parse(Array(#"<D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>"#.utf8), library: missing)
        }
    }
}
