import Foundation
import NotesCore
import Testing
@testable import NotesServer

/// A changes page is written entry by entry into one buffer; the entry that would take it past
/// its bound is taken back out, and what is left must be exactly the page `JSONEncoder` writes.
@Suite("Changes page writer")
struct ChangesPageWriterTests {
    private static func note(_ index: Int, content: String?) -> NoteResource {
        NoteResource(id: NoteID(), path: "folder/note \(index) \"quoted\".md", content: content,
                     hash: String(repeating: "0f", count: 32), rev: Int64(index), size: content?.utf8.count ?? 0,
                     createdAt: "2026-12-07T18:00:00.000Z", updatedAt: "2026-12-07T18:00:00.\(100 + index)Z", deleted: index % 2 == 1)
    }

    @Test("a page stops before the entry past its bound, and its bytes are JSONEncoder's page of the entries it kept")
    func pageWithinBoundIsTheEncodersPage() throws {
        let notes = (0..<6).map { Self.note($0, content: $0 == 3 ? String(repeating: "line\n", count: 200) : "text \($0)") }
        let bound = 1_400
        var writer = ChangesPageWriter(maxBytes: bound)
        var kept: [NoteResource] = []
        for note in notes {
            guard try writer.append(note) else { break }
            kept.append(note)
        }
        #expect(kept.count == 3, "the fourth entry (1 KB of text) does not fit in \(bound) bytes")
        #expect(writer.count == kept.count)
        let body = try writer.finish(cursor: "full-3", hasMore: true, userId: 7)
        let expected = ChangesPage(changes: kept, cursor: "full-3", hasMore: true, userId: 7)
        #expect(body == Array(try WireJSON.encoder().encode(expected)))
        #expect(body.count <= bound)
    }

    @Test("the first entry comes alone on its page even when it is larger than the bound, and an empty page is the encoder's")
    func firstEntryAlwaysFitsAndEmptyPage() throws {
        let large = Self.note(0, content: String(repeating: "x", count: 4_000))
        var writer = ChangesPageWriter(maxBytes: 1_000)
        #expect(try writer.append(large))
        #expect(try !writer.append(Self.note(1, content: nil)))
        let body = try writer.finish(cursor: "full-1", hasMore: true, userId: 1)
        #expect(body == Array(try WireJSON.encoder().encode(ChangesPage(changes: [large], cursor: "full-1", hasMore: true, userId: 1))))

        let empty = try ChangesPageWriter(maxBytes: 1_000).finish(cursor: "full-0", hasMore: false, userId: 2)
        #expect(empty == Array(try WireJSON.encoder().encode(ChangesPage(changes: [], cursor: "full-0", hasMore: false, userId: 2))))
    }
}
