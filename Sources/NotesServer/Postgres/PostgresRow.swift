import CPQ

/// The rows of one statement's answer, owning libpq's `PGresult` until the last row lets go.
final class PostgresResult {
    let handle: OpaquePointer

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        PQclear(handle)
    }

    var rowCount: Int { Int(PQntuples(handle)) }
    var columnCount: Int { Int(PQnfields(handle)) }

    /// The command's tag (`INSERT 0 1`, `COMMIT`, or `ROLLBACK` for a COMMIT that rolled back).
    var commandStatus: String {
        PQcmdStatus(handle).map { String(cString: $0) } ?? ""
    }

    /// The rows a write touched (`PQcmdTuples`: INSERT, UPDATE, DELETE, ...); 0 for other statements.
    var affectedRows: Int {
        guard let text = PQcmdTuples(handle) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }
}

@available(*, unavailable)
extension PostgresResult: Sendable {}

/// One row of a result, read with the same accessors as a SQLite `Statement` (`SQLRow`).
///
/// Results come in text format: integers and booleans are parsed from their text (`t`/`f` for a
/// boolean column, `0`/`1` for the integer flags the schema shares with SQLite), `bytea` from
/// its hex form. Reading a column that is not there is a programming error, as in SQLite.
struct PostgresRow {
    let result: PostgresResult
    let row: Int32

    /// The `bytea` type's object id, whose text form is hex (`\x0a1b`).
    private static let byteaType: UInt32 = 17

    private func text(_ column: Int) -> UnsafeBufferPointer<UInt8> {
        let field = Int32(column)
        precondition(column >= 0 && column < result.columnCount, "column \(column) is not in the result")
        let count = Int(PQgetlength(result.handle, row, field))
        guard let value = PQgetvalue(result.handle, row, field) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeRawPointer(value).withMemoryRebound(to: UInt8.self, capacity: count) {
            UnsafeBufferPointer(start: $0, count: count)
        }
    }

    var columnCount: Int { result.columnCount }

    func isNull(_ column: Int) -> Bool {
        PQgetisnull(result.handle, row, Int32(column)) == 1
    }

    /// The column as an integer; NULL, or text that is not one, reads as 0 (as SQLite does).
    func int64(_ column: Int) -> Int64 {
        let digits = text(column)
        guard let first = digits.first else { return 0 }
        let negative = first == UInt8(ascii: "-")
        var value: Int64 = 0
        // Accumulated towards the sign, so that Int64.min (one more than Int64.max) fits.
        for byte in digits.dropFirst(negative ? 1 : 0) {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return 0 }
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            if overflowA || overflowB { return 0 }
            value = next
        }
        return value
    }

    func int(_ column: Int) -> Int { Int(int64(column)) }

    func double(_ column: Int) -> Double { Double(string(column)) ?? 0 }

    /// `true` for a boolean column's `t` and for any non-zero integer.
    func bool(_ column: Int) -> Bool {
        let bytes = text(column)
        guard let first = bytes.first else { return false }
        if first == UInt8(ascii: "t") { return true }
        if first == UInt8(ascii: "f") { return false }
        return int64(column) != 0
    }

    /// The column as text; a NULL reads as the empty string (use `optionalString` to tell them apart).
    func string(_ column: Int) -> String {
        PostgresTextEscape.unescape(text(column))
    }

    func optionalString(_ column: Int) -> String? {
        isNull(column) ? nil : string(column)
    }

    /// The column's bytes: a `bytea` decoded from its hex form, any other type its text.
    func bytes(_ column: Int) -> [UInt8] {
        let raw = text(column)
        guard PQftype(result.handle, Int32(column)) == Self.byteaType else { return Array(raw) }
        guard raw.count >= 2, raw[0] == UInt8(ascii: "\\"), raw[1] == UInt8(ascii: "x") else { return Array(raw) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((raw.count - 2) / 2)
        var index = 2
        while index + 1 < raw.count {
            guard let high = Self.hexValue(raw[index]), let low = Self.hexValue(raw[index + 1]) else { break }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

@available(*, unavailable)
extension PostgresRow: Sendable {}
