import Foundation
import NotesTestSupport
import Testing
@testable import NotesCore

/// `Statement.withBytes` hands out a column's bytes in place: the same bytes `string` and
/// `bytes` copy out, for text, blobs, empty values and NULL.
@Suite("Statement bytes in place")
struct StatementBytesTests {
    @Test("withBytes gives a column's bytes as string and bytes read them, and nothing for NULL")
    func bytesInPlaceMatchCopies() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.appending("db.sqlite").path)
            defer { try? db.close() }
            try db.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, text TEXT, data BLOB)")
            let texts = ["f0/caf\u{E9}.md", "", "a\u{0}b", String(repeating: "x", count: 5_000)]
            for (n, text) in texts.enumerated() {
                _ = try db.run("INSERT INTO t (n, text, data) VALUES (?, ?, ?)", n, text, Array(text.utf8))
            }
            _ = try db.run("INSERT INTO t (n, text, data) VALUES (99, NULL, NULL)")
            let rows = try db.compactQuery("SELECT n, text, data FROM t ORDER BY n") { row -> (Int, [UInt8], [UInt8], String, [UInt8]) in
                (row.int(0), row.withBytes(1) { Array($0) }, row.withBytes(2) { Array($0) }, row.string(1), row.bytes(2))
            }
            #expect(rows.count == texts.count + 1)
            for (n, text, data, string, bytes) in rows {
                #expect(text == Array(string.utf8), "row \(n)")
                #expect(data == bytes, "row \(n)")
                if n < texts.count { #expect(text == Array(texts[n].utf8)) } else { #expect(text.isEmpty && data.isEmpty) }
            }
        }
    }
}
