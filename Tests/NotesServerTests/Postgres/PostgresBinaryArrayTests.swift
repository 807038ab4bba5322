import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// `PostgresBinaryArray`, the binary arrays a batch binds (`unnest(?::text[])`): every element
/// reaches the server as it would bound alone, in order, NULLs included, and the batch's
/// statements store the awkward texts byte for byte.
@Suite("PostgreSQL: binary array parameters", .needsPostgresCluster)
struct PostgresBinaryArrayTests {
    /// Texts that the text literal form had to quote or escape, or that PostgreSQL's text
    /// cannot hold as they are, and one of 100 KB.
    static let awkward: [String?] = [
        "", "plain", "NULL", nil, "{braces}, \"quotes\" and \\backslashes\\", "a,b", " spaced ", "'single'",
        "nul \u{0} inside", "\u{10FFFF} marker", "Zoë 日本 🐧 é", "\n\t\r", nil, "",
        String(repeating: "Line of a long note, é → 🐧 \"q\" \\ \n", count: 2_900),
    ]

    @Test("text elements round-trip exactly, in order: NULLs, empty strings, quotes, backslashes, U+0000, non-ASCII, 100 KB")
    func textElementsRoundTrip() async throws {
        try await withPostgresDatabase { database in
            let db = try database.connect()
            defer { db.close() }
            var array = PostgresBinaryArray(of: .text)
            for text in Self.awkward { array.append(text) }
            let rows = try db.query("SELECT t, n FROM unnest(?::text[]) WITH ORDINALITY AS a(t, n) ORDER BY n", [array.value]) { row in
                row.isNull(0) ? nil : row.string(0)
            }
            #expect(rows.count == Self.awkward.count)
            for (index, (got, expected)) in zip(rows, Self.awkward).enumerated() {
                #expect(got.map { Array($0.utf8) } == expected.map { Array($0.utf8) }, "element \(index)")
            }
            // Each element is stored as the same text bound alone is: equal in SQL.
            for text in Self.awkward.compactMap({ $0 }) {
                #expect(try db.scalarInt("SELECT count(*) FROM unnest(?::text[]) AS a(t) WHERE t = ?", [array.value, text]) ?? 0 >= 1)
            }
        }
    }

    @Test("integer, boolean and empty arrays reach the server as their values, extremes included")
    func otherElementsRoundTrip() async throws {
        try await withPostgresDatabase { database in
            let db = try database.connect()
            defer { db.close() }
            let longs: [Int64] = [0, 1, -1, Int64.min, Int64.max, 1_764_000_000_000]
            var int8 = PostgresBinaryArray(of: .int8)
            for value in longs { int8.append(value) }
            #expect(try db.query("SELECT v FROM unnest(?::bigint[]) WITH ORDINALITY AS a(v, n) ORDER BY n", [int8.value]) { $0.int64(0) } == longs)

            let ints: [Int64] = [0, 1, -1, Int64(Int32.min), Int64(Int32.max)]
            var int4 = PostgresBinaryArray(of: .int4)
            for value in ints { int4.append(value) }
            int4.appendNull()
            let intRows = try db.query("SELECT v FROM unnest(?::integer[]) WITH ORDINALITY AS a(v, n) ORDER BY n", [int4.value]) {
                $0.isNull(0) ? nil : $0.int64(0)
            }
            #expect(intRows == ints.map { $0 } + [nil])

            var flags = PostgresBinaryArray(of: .bool)
            for flag in [true, false, true] { flags.append(flag) }
            #expect(try db.query("SELECT v FROM unnest(?::boolean[]) WITH ORDINALITY AS a(v, n) ORDER BY n", [flags.value]) { $0.bool(0) }
                == [true, false, true])

            for element in [PostgresBinaryArray.Element.text, .int8, .int4, .bool] {
                let empty = PostgresBinaryArray(of: element)
                let type = ["text", "bigint", "integer", "boolean"][[.text, .int8, .int4, .bool].firstIndex(of: element) ?? 0]
                #expect(try db.scalarInt("SELECT count(*) FROM unnest(?::\(type)[])", [empty.value]) == 0, "an empty \(type) array")
            }
            #expect(try db.scalarInt("SELECT count(*) FROM unnest(?::text[]) AS a(t) WHERE t = ANY(?::text[])",
                                     [PostgresBinaryArray(["a", "b"]).value, PostgresBinaryArray(["b"]).value]) == 1)
        }
    }

    @Test("a batch stores awkward note texts and paths byte for byte, read back through the store")
    func batchStoresAwkwardTexts() async throws {
        try await withPostgresDatabase { database in
            let setup = try database.migrated()
            defer { setup.close() }
            let pool = try PostgresPool(url: database.url, size: 2)
            defer { pool.close() }
            let store = NoteStore(database: .postgres(pool), clock: ServerClock(), limits: ServerConfiguration().limits, notifier: InProcessChangeNotifier())
            let user = try PostgresRowStorageTests.newUser(setup, "arrays")
            let texts = Self.awkward.compactMap { $0 }
            let paths = ["plain", "quo\"te", "apos'trophe", "{brace}", "Zoë 日本", "a,b", "NULL", "sp ace"]
            let ids = texts.map { _ in NoteID() }
            let notePaths = try texts.indices.map { try NotePath("\(paths[$0 % paths.count]) \($0).md") }
            try store.write(for: user) { db in
                let batch = try store.batch(db, userID: user, device: "dev\"ice\\", ids: ids, paths: notePaths.map(\.description))
                for (index, text) in texts.enumerated() {
                    _ = try batch.put(id: ids[index], path: notePaths[index], content: text, precondition: .absent)
                }
                try batch.finish()
            }
            #expect(try setup.scalarInt("SELECT count(*) FROM search_queue WHERE user_id = ?", [user]) == Int64(texts.count),
                    "the statement's insert trigger queued every note once")
            #expect(try setup.scalarInt("SELECT count(DISTINCT device) FROM revisions WHERE user_id = ? AND device = ?", [user, "dev\"ice\\"]) == 1)
            for (number, (id, text)) in zip(ids, texts).enumerated() {
                let stored = try #require(try store.note(userID: user, id: id))
                #expect(stored.content.map { Array($0.utf8) } == Array(text.utf8), "note \(number) reads back as written")
                #expect(stored.path == notePaths[number].description)
            }
        }
    }
}
