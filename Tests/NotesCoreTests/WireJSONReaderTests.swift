import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// The hand reader of bulk sync answers must give exactly the Codable types' values for the
/// same bytes, or refuse (the client then decodes with `JSONDecoder`): it may never read a
/// different value than `JSONDecoder` would.
@Suite("Wire JSON reader")
struct WireJSONReaderTests {
    /// What `JSONDecoder` makes of `text`, and what the hand reader makes of it.
    static func both<T: WireJSONReadable & Equatable>(_ type: T.Type, _ text: String) -> (foundation: T?, hand: T?) {
        let data = Data(text.utf8)
        return (try? WireJSON.decoder().decode(type, from: data), WireJSONReading.decode(type, from: data))
    }

    static func randomChanges(_ random: inout SeededRandom) -> ChangesPage {
        ChangesPage(changes: (0..<Int(random.next() % 5)).map { _ in WireJSONWriterTests.randomNote(&random) },
                    cursor: WireJSONWriterTests.randomString(&random), hasMore: random.next() % 2 == 0,
                    userId: random.next() % 2 == 0 ? nil : Int64(bitPattern: random.next()))
    }

    static func randomBatch(_ random: inout SeededRandom) -> BatchResponse {
        var batch = BatchResponse(results: (0..<Int(random.next() % 5)).map { _ in
            let note = WireJSONWriterTests.randomNote(&random)
            return random.next() % 2 == 0
                ? BatchResult(id: note.id, status: 201, note: note)
                : BatchResult(id: note.id, status: Int(random.next() % 600), note: random.next() % 2 == 0 ? note : nil,
                              error: .init(code: "stale", message: WireJSONWriterTests.randomString(&random)))
        })
        if random.next() % 2 == 0 {
            batch.cursorBefore = String(random.next() % 1_000_000)
            batch.cursorAfter = WireJSONWriterTests.randomString(&random)
        }
        return batch
    }

    @Test("pages of changes and batch answers, compact or pretty-printed, read back as the values JSONDecoder reads (seeded random values)")
    func readsWhatTheEncodersWrite() throws {
        var random = SeededRandom(seed: 20261203)
        let pretty = WireJSON.encoder()
        pretty.outputFormatting.insert(.prettyPrinted)
        for _ in 0..<200 {
            let changes = Self.randomChanges(&random)
            let batch = Self.randomBatch(&random)
            for data in [Data(changes.wireJSON()), try WireJSON.encoder().encode(changes), try pretty.encode(changes)] {
                #expect(WireJSONReading.decode(ChangesPage.self, from: data) == changes)
                #expect(try WireJSON.decoder().decode(ChangesPage.self, from: data) == changes)
            }
            for data in [Data(batch.wireJSON()), try pretty.encode(batch)] {
                #expect(WireJSONReading.decode(BatchResponse.self, from: data) == batch)
            }
        }
    }

    @Test("a batch answer from a server before the feed cursors reads with none, by hand and by JSONDecoder, and the writer leaves them out when absent")
    func batchAnswerWithoutFeedCursors() throws {
        let old = #"{"results": [{"id": ""# + NoteID().value + #"", "status": 412}]}"#
        let read = Self.both(BatchResponse.self, old)
        #expect(read.hand != nil && read.hand == read.foundation)
        #expect(read.hand?.cursorBefore == nil && read.hand?.cursorAfter == nil && read.hand?.feedSpan == nil)
        let written = String(decoding: BatchResponse(results: []).wireJSON(), as: UTF8.self)
        #expect(!written.contains("cursor"), "\(written)")
        let spanned = Self.both(BatchResponse.self, #"{"cursor_after": "12", "cursor_before": "9", "results": []}"#)
        #expect(spanned.hand == spanned.foundation)
        #expect(spanned.hand?.feedSpan.map { [$0.before, $0.after] } == ["9", "12"])
    }

    @Test("every string escape, surrogate pairs, null optionals and unknown members read as JSONDecoder reads them")
    func escapesAndUnknownMembers() throws {
        let id = NoteID()
        let text = #"""
            {"future": {"nested": [1, -2, "x", null, true, {"a": []}]}, "changes": [
              {"id": "\#(id)", "path": "a\/b \u00e9\u00E9.md", "content": "\"\\\b\f\n\r\t \ud83d\ude00 \u0000",
               "hash": "h", "rev": -9223372036854775808, "size": 0, "created_at": "c", "updated_at": "u",
               "deleted": false, "extra": 12}
            ], "cursor": "9", "has_more": true, "user_id": null}
            """#
        let (foundation, hand) = Self.both(ChangesPage.self, text)
        #expect(foundation != nil)
        #expect(hand == foundation)
        #expect(hand?.changes.first?.content == "\"\\\u{8}\u{c}\n\r\t 😀 \u{0}")
        #expect(hand?.changes.first?.path == "a/b éé.md")
    }

    @Test("text between escapes is copied in runs: escapes first, last, back to back and between long plain runs read as JSONDecoder reads them")
    func plainRunsBetweenEscapes() throws {
        let note = #"{"id": "\#(NoteID())", "path": "a.md", "hash": "h", "size": 1, "created_at": "c", "updated_at": "u", "deleted": false, "rev": 1, "content": "#
        let long = String(repeating: "plain é text ", count: 400)
        let contents = [#"\n"#, #"\nstarts"#, #"ends\n"#, #"\n\t\"\\"#, long + #"\n"# + long + #"\u00e9\ud83d\ude00"# + long,
                        #"a\/b\/c"#, #"\\"# + long,
                        // Surrogate pairs (one escape read as two: the second backslash is passed
                        // over by the decoding, not copied), back to back, first, last and beside
                        // other escapes; an escaped backslash before text that looks like an escape.
                        #"\ud83d\ude00\ud83d\ude00"#, #"\ud83d\ude00\n"#, #"x\ud83d\ude00"#, #"\n\ud83d\ude00y\t"#,
                        #"\\u0041"#, #"\\\ud83d\ude00\\"#, long + #"\ud83d\ude00"# + long + #"\\n"#]
        for content in contents {
            let (foundation, hand) = Self.both(NoteResource.self, note + "\"" + content + "\"}")
            #expect(foundation != nil)
            #expect(hand == foundation, "\(content.prefix(40))")
        }
        // A raw control character is refused wherever it comes: before, between and after escapes.
        for content in ["a\u{1}\\n", "\\na\u{1}b", "\\n\u{1f}", long + "\\n" + long + "\u{0}"] {
            #expect(WireJSONReading.decode(NoteResource.self, from: Data((note + "\"" + content + "\"}").utf8)) == nil)
        }
    }

    @Test("a quote, a backslash or a raw control byte is found at every offset of an eight-byte word, after plain runs of every length and next to bytes just above and below them")
    func stopsAtEveryOffset() throws {
        let note = #"{"id": "\#(NoteID())", "path": "a.md", "hash": "h", "size": 1, "created_at": "c", "updated_at": "u", "deleted": false, "rev": 1, "content": "#
        // Neighbours of the stop bytes in value (`!`, `#`, `[`, `]`, space, DEL, UTF-8 bytes
        // over 0x80), so a test that looks at eight bytes at once cannot take one for another.
        let fillers = ["a", "!", "#", "[", "]", " ", "\u{7F}", "é", "😀"]
        for length in 0..<20 {
            for filler in fillers {
                let run = String(repeating: filler, count: length)
                for escape in [#"\""#, #"\\"#, #"\n"#, #"\u0000"#] {
                    for content in [run + escape + run, escape + run, run + escape] {
                        let (foundation, hand) = Self.both(NoteResource.self, note + "\"" + content + "\"}")
                        #expect(foundation != nil && hand == foundation, "\(length) \(filler) \(content)")
                    }
                }
                for control in ["\u{0}", "\u{1}", "\u{1F}", "\n"] {
                    for content in [run + control + run, run + control, run + #"\n"# + run + control] {
                        #expect(WireJSONReading.decode(NoteResource.self, from: Data((note + "\"" + content + "\"}").utf8)) == nil,
                                "\(length) \(filler) \(content.debugDescription)")
                    }
                }
                let (foundation, hand) = Self.both(NoteResource.self, note + "\"" + run + "\"}")
                #expect(foundation != nil && hand == foundation && hand?.content == run)
            }
        }
    }

    @Test("what the hand reader does not take is left to JSONDecoder: fractions, exponents, bad UTF-8, lone surrogates, missing or mistyped fields")
    func refusesWhatItDoesNotTake() throws {
        let note = #"{"id": "\#(NoteID())", "path": "a.md", "hash": "h", "size": 1, "created_at": "c", "updated_at": "u", "deleted": false, "rev": "#
        let refused = [
            note + "1.0}", note + "1e3}", note + "01}", note + "99999999999999999999}", note + "\"1\"}",
            note + "1, \"content\": \"\\ud800\"}", note + "1, \"content\": \"raw\ncontrol\"}",
            #"{"id": "not-a-uuid", "path": "a.md"}"#, note + "1", note + "1} trailing",
            #"{"path": "a.md", "hash": "h", "rev": 1, "size": 1, "created_at": "c", "updated_at": "u", "deleted": false}"#,
        ]
        for text in refused {
            let (foundation, hand) = Self.both(NoteResource.self, text)
            #expect(hand == nil, "\(text)")
            _ = foundation  // JSONDecoder decides these: a value (1.0, 1e3) or an error
        }
        var invalid = Data((note + "1, \"content\": \"").utf8)
        invalid.append(contentsOf: [0xC3, 0x28])
        invalid.append(contentsOf: Data("\"}".utf8))
        #expect(WireJSONReading.decode(NoteResource.self, from: invalid) == nil)
        let accepted = Self.both(NoteResource.self, note + "7}")
        #expect(accepted.hand != nil && accepted.hand == accepted.foundation)
    }

    static func randomBatchRequest(_ random: inout SeededRandom) -> BatchRequest {
        BatchRequest(operations: (0..<Int(random.next() % 6)).map { _ in
            switch random.next() % 3 {
            case 0:
                return BatchOperation(op: .put, id: NoteID(), path: WireJSONWriterTests.randomString(&random) + ".md",
                                      content: WireJSONWriterTests.randomString(&random),
                                      ifMatch: random.next() % 2 == 0 ? nil : Int64(random.next() % 1000),
                                      ifNoneMatch: random.next() % 2 == 0 ? "*" : nil)
            case 1:
                return BatchOperation(op: .put, id: NoteID(), path: WireJSONWriterTests.randomString(&random) + ".png",
                                      ifNoneMatch: "*", kind: .attachment, hash: String(repeating: "0f", count: 32))
            default:
                return BatchOperation(op: .delete, id: NoteID(), ifMatch: Int64(random.next() % 1000))
            }
        })
    }

    @Test("batch bodies (note and attachment puts, deletes), as the client and JSONEncoder write them, read back as JSONDecoder reads them (seeded random values)")
    func readsBatchBodies() throws {
        var random = SeededRandom(seed: 20261201)
        let pretty = WireJSON.encoder()
        pretty.outputFormatting.insert(.prettyPrinted)
        for _ in 0..<200 {
            let batch = Self.randomBatchRequest(&random)
            for data in [Data(batch.wireJSON()), try WireJSON.encoder().encode(batch), try pretty.encode(batch)] {
                #expect(WireJSONReading.decode(BatchRequest.self, from: data) == batch)
                #expect(try WireJSON.decoder().decode(BatchRequest.self, from: data) == batch)
            }
        }
        let id = NoteID()
        let nulls = #"{"operations": [{"op": "put", "id": "\#(id)", "path": "a.md", "content": "x", "if_match": null, "if_none_match": null, "kind": null, "hash": null, "future": [1]}], "later": {}}"#
        let (foundation, hand) = Self.both(BatchRequest.self, nulls)
        #expect(foundation != nil)
        #expect(hand == foundation)
    }

    @Test("a batch body the hand reader does not take (a member twice, an unknown op or kind, a fraction) is left to JSONDecoder")
    func refusesAmbiguousBatchBodies() throws {
        let id = NoteID()
        let refused = [
            #"{"operations": [{"op": "put", "id": "\#(id)", "path": "a.md", "path": "b.md", "content": "x"}]}"#,
            #"{"operations": [{"op": "delete", "id": "\#(id)", "if_match": 1, "if_match": 2}]}"#,
            #"{"operations": [], "operations": [{"op": "delete", "id": "\#(id)", "if_match": 1}]}"#,
            #"{"operations": [{"op": "PUT", "id": "\#(id)", "path": "a.md", "content": "x"}]}"#,
            #"{"operations": [{"op": "put", "id": "\#(id)", "path": "a.png", "kind": "folder", "hash": "h"}]}"#,
            #"{"operations": [{"op": "delete", "id": "\#(id)", "if_match": 1.0}]}"#,
            #"{"operations": [{"op": "delete", "id": "not-a-uuid", "if_match": 1}]}"#,
            #"{"operations": [{"id": "\#(id)", "if_match": 1}]}"#,
        ]
        for text in refused {
            #expect(Self.both(BatchRequest.self, text).hand == nil, "\(text)")
        }
    }
    @Test("keys are matched by their bytes: names that only start like a known one are skipped, and an escaped or non-ASCII key is left to JSONDecoder")
    func keysMatchedByBytes() throws {
        let id = NoteID()
        let body = #""path": "a.md", "hash": "h", "size": 1, "created_at": "c", "updated_at": "u", "deleted": false, "rev": 1"#
        let lookalikes = #"{"i": 1, "ids": "x", "id_": "y", "": 2, "pat": "p", "hash2": "z", "id": "\#(id)", \#(body)}"#
        let read = Self.both(NoteResource.self, lookalikes)
        #expect(read.hand != nil && read.hand == read.foundation)
        #expect(read.hand?.id == id && read.hand?.path == "a.md" && read.hand?.hash == "h")
        for key in [#"\u0069d"#, #"i\u0064"#, "ïd", #"i\"d"#] {
            let text = #"{"\#(key)": "\#(id)", \#(body)}"#
            #expect(WireJSONReading.decode(NoteResource.self, from: Data(text.utf8)) == nil, "\(key)")
            let escaped = #"{"id": "\#(id)", "\#(key)": 1, \#(body)}"#
            let both = Self.both(NoteResource.self, escaped)
            #expect(both.hand == nil, "\(key) is left to JSONDecoder")
            #expect(both.foundation?.id == id, "\(key)")
        }
        let batch = #"{"results": [{"id": "\#(id)", "status": 201, "note": {"id": "\#(id)", \#(body)}}], "cursor_\u0061fter": "2"}"#
        #expect(Self.both(BatchResponse.self, batch).hand == nil)
        #expect(Self.both(BatchResponse.self, batch).foundation?.cursorAfter == "2")
    }
}
