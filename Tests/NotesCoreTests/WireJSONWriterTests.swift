import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// The hand-written JSON of the hot wire shapes must be exactly what the Codable types encode
/// to with `WireJSON`: clients decode either, and a difference would be a silent protocol change.
@Suite("Wire JSON writer")
struct WireJSONWriterTests {
    /// Strings that exercise every escape: quotes, backslashes, each control character, DEL,
    /// slashes, line separators, combining marks, emoji and invalid-looking but valid text.
    static let awkward: [String] = [
        "", "plain", "quote \" and \\ backslash", "a/b/c.md", "tab\tnew\nline\rcr",
        String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }), "\u{7f}del", "\u{2028}\u{2029}",
        "e\u{301}", "👩‍👩‍👧 emoji", "日本語のノート", "<script>&amp;</script>", "\u{feff}bom",
    ]

    static func randomString(_ random: inout SeededRandom) -> String {
        let pick = awkward[Int(random.next() % UInt64(awkward.count))]
        let scalars = (0..<Int(random.next() % 12)).compactMap { _ in Unicode.Scalar(UInt32(random.next() % 0x3000)) }
        return pick + String(String.UnicodeScalarView(scalars))
    }

    static func randomNote(_ random: inout SeededRandom) -> NoteResource {
        NoteResource(id: NoteID(), path: randomString(&random) + ".md",
                     content: random.next() % 3 == 0 ? nil : randomString(&random),
                     hash: String(repeating: "ab", count: 32), rev: Int64(bitPattern: random.next() >> 1) * (random.next() % 2 == 0 ? 1 : -1),
                     size: Int(random.next() % 100_000), createdAt: "2026-12-01T08:00:00.000Z",
                     updatedAt: randomString(&random), deleted: random.next() % 2 == 0)
    }

    static func encoded<T: Encodable>(_ value: T) throws -> [UInt8] {
        Array(try WireJSON.encoder().encode(value))
    }

    @Test("every awkward string encodes byte for byte as JSONEncoder does, and decodes back")
    func stringsMatchFoundation() throws {
        for text in Self.awkward {
            let error = APIErrorBody(code: "c", message: text)
            #expect(error.wireJSON() == (try Self.encoded(error)), "\(text.debugDescription)")
            #expect(try WireJSON.decoder().decode(APIErrorBody.self, from: Data(error.wireJSON())) == error)
        }
    }

    @Test("notes, pages of notes and of changes, and batch answers match JSONEncoder's bytes (seeded random values)")
    func shapesMatchFoundation() throws {
        var random = SeededRandom(seed: 20261201)
        for _ in 0..<200 {
            let notes = (0..<Int(random.next() % 4)).map { _ in Self.randomNote(&random) }
            let note = Self.randomNote(&random)
            #expect(note.wireJSON() == (try Self.encoded(note)))
            #expect(try WireJSON.decoder().decode(NoteResource.self, from: Data(note.wireJSON())) == note)

            let list = NoteListPage(notes: notes, nextCursor: random.next() % 2 == 0 ? nil : Self.randomString(&random))
            #expect(list.wireJSON() == (try Self.encoded(list)))

            let changes = ChangesPage(changes: notes, cursor: Self.randomString(&random), hasMore: random.next() % 2 == 0,
                                      userId: random.next() % 2 == 0 ? nil : Int64(random.next() % 1000))
            #expect(changes.wireJSON() == (try Self.encoded(changes)))

            let batch = BatchResponse(results: notes.map { note in
                random.next() % 2 == 0
                    ? BatchResult(id: note.id, status: 200, note: note)
                    : BatchResult(id: note.id, status: 412, note: random.next() % 2 == 0 ? note : nil,
                                  error: .init(code: "stale", message: Self.randomString(&random)))
            })
            #expect(batch.wireJSON() == (try Self.encoded(batch)))
        }
    }

    @Test("revs and sizes at the edges of their ranges (zero, one and two digits, negative, Int64.min and .max) match JSONEncoder's bytes")
    func integersAtTheEdgesMatchFoundation() throws {
        let values: [Int64] = [0, 1, 9, 10, 99, 100, -1, -9, -10, 1_000_000_007, Int64.max, Int64.min, Int64.min + 1]
        for value in values {
            let page = ChangesPage(changes: [], cursor: "c", hasMore: false, userId: value)
            #expect(page.wireJSON() == (try Self.encoded(page)), "\(value)")
            let note = NoteResource(id: NoteID(), path: "a.md", content: nil, hash: "h", rev: value, size: Int(value),
                                    createdAt: "", updatedAt: "", deleted: false)
            #expect(note.wireJSON() == (try Self.encoded(note)), "\(value)")
        }
    }

    @Test("batch requests, as the client writes them by hand, match JSONEncoder's bytes and decode back (seeded random values)")
    func batchRequestsMatchFoundation() throws {
        var random = SeededRandom(seed: 20261202)
        for _ in 0..<200 {
            let operations = (0..<Int(random.next() % 5)).map { _ -> BatchOperation in
                switch random.next() % 3 {
                case 0: BatchOperation(op: .put, id: NoteID(), path: Self.randomString(&random) + ".md",
                                       content: Self.randomString(&random), ifNoneMatch: "*")
                case 1: BatchOperation(op: .put, id: NoteID(), path: Self.randomString(&random) + ".md",
                                       content: Self.randomString(&random), ifMatch: Int64(random.next() % 1_000_000))
                default: BatchOperation(op: .delete, id: NoteID(), ifMatch: Int64(random.next() % 1_000_000))
                }
            }
            let request = BatchRequest(operations: operations)
            #expect(request.wireJSON() == (try Self.encoded(request)))
            #expect(try WireJSON.decoder().decode(BatchRequest.self, from: Data(request.wireJSON())) == request)
        }
    }

    @Test("a byte that needs an escape is found at every position of a long text, whether the text is read eight bytes at a time or one")
    func escapesAtEveryPosition() throws {
        let specials: [Character] = ["\"", "\\", "\n", "\u{0}", "\u{1f}", "\u{7f}", " ", "é", "\u{2028}"]
        for length in 0...40 {
            for position in 0..<max(length, 1) {
                for special in specials {
                    var characters = Array(repeating: Character("a"), count: length)
                    if length > 0 { characters[position] = special }
                    let note = NoteResource(id: NoteID(), path: "a.md", content: String(characters), hash: "h", rev: 1, size: length,
                                            createdAt: "c", updatedAt: "u", deleted: false)
                    #expect(note.wireJSON() == (try Self.encoded(note)), "length \(length), \(special) at \(position)")
                }
            }
        }
    }

    @Test("two bytes that need escapes are both escaped wherever they fall, in one eight-byte word or across two, with the next one right after the first")
    func twoEscapesAtEveryPairOfPositions() throws {
        let specials: [Character] = ["\"", "\n", "\u{1}", "\\"]
        let length = 24
        for first in 0..<length {
            for second in first + 1..<length {
                for (one, other) in zip(specials, specials.reversed()) {
                    var characters = Array(repeating: Character("b"), count: length)
                    characters[first] = one
                    characters[second] = other
                    let operation = BatchOperation(op: .put, id: NoteID(), path: "a.md", content: String(characters), ifNoneMatch: "*")
                    #expect(operation.wireJSON() == (try Self.encoded(operation)), "\(one) at \(first), \(other) at \(second)")
                }
            }
        }
    }

    @Test("texts where many or all bytes of a word need escapes, six-byte ones included, of every length up to 80, encode as JSONEncoder does (seeded random values)")
    func denseEscapes() throws {
        let pool: [Character] = ["\"", "\\", "\n", "\t", "\u{0}", "\u{1}", "\u{1f}", "\u{8}", "a", "é", "/"]
        var random = SeededRandom(seed: 41)
        for length in 0...80 {
            for density in [1, 2, 4] {
                let characters = (0..<length).map { _ in
                    random.next() % UInt64(density) == 0 ? pool[Int(random.next() % 8)] : pool[8 + Int(random.next() % 3)]
                }
                let operation = BatchOperation(op: .put, id: NoteID(), path: "a.md", content: String(characters), ifNoneMatch: "*")
                #expect(operation.wireJSON() == (try Self.encoded(operation)), "length \(length), density \(density): \(characters)")
            }
            let controls = String(repeating: "\u{1}", count: length)
            let note = NoteResource(id: NoteID(), path: "a.md", content: controls, hash: "h", rev: 1, size: length,
                                    createdAt: "c", updatedAt: "u", deleted: false)
            #expect(note.wireJSON() == (try Self.encoded(note)), "\(length) control characters")
        }
    }
}
