import NotesCore

/// A one-dimensional PostgreSQL array in the binary form `array_recv` reads, bound as one value
/// and cast in the statement (`?::text[]`, `?::bigint[]`): how a batch hands a column of many
/// rows to one statement (`unnest`, `= ANY`).
///
/// Binary rather than the text literal (`{"a","b",NULL}`): parsing the batch's literals
/// (`array_in`, every byte of every note's text looked at for quotes and backslashes) was
/// ~9 % of PostgreSQL's CPU in a new account's 10,000-note upload (perf, the cluster's
/// processes); in binary each element is a length and its bytes, copied as they are.
///
/// The form: the number of dimensions (1, or 0 for an empty array), whether any element is
/// NULL, the element type's OID, the length and lower bound (1) of the dimension, then each
/// element as its length (-1 for NULL) and its bytes in the type's binary form (text: its UTF-8
/// bytes; `int8`, `int4`: big-endian; `bool`: one byte); every integer big-endian. The element
/// type must be the one the statement casts to: `array_recv` refuses any other.
///
/// Text elements go through `PostgresTextEscape` as any bound text does (PostgreSQL's text
/// cannot hold U+0000), so each element is stored exactly as if it were bound alone.
struct PostgresBinaryArray {
    /// The element types a batch binds, by their OIDs.
    enum Element: UInt32 {
        case text = 25
        case int8 = 20
        case int4 = 23
        case bool = 16
    }

    let element: Element
    private var body: [UInt8] = []
    private(set) var count = 0
    private var hasNull = false

    init(of element: Element, reservingCapacity capacity: Int = 0) {
        self.element = element
        body.reserveCapacity(capacity)
    }

    /// An array of `texts`.
    init(_ texts: some Sequence<String>) {
        self.init(of: .text)
        for text in texts { append(text) }
    }

    /// Appends a text element, or NULL; the array must be of `text`.
    mutating func append(_ text: String?) {
        precondition(element == .text, "a text element in an array of \(element)")
        guard let text else {
            appendNull()
            return
        }
        let stored = PostgresTextEscape.escape(text)
        count += 1
        put(UInt32(truncatingIfNeeded: stored.utf8.count))
        body.append(contentsOf: stored.utf8)
    }

    /// Appends an integer element; the array must be of `int8` or `int4` (a value out of
    /// `int4`'s range is a programming error: the batch's `int4` columns hold flags).
    mutating func append(_ number: Int64) {
        count += 1
        switch element {
        case .int8:
            put(8)
            put(UInt32(truncatingIfNeeded: UInt64(bitPattern: number) >> 32))
            put(UInt32(truncatingIfNeeded: UInt64(bitPattern: number)))
        case .int4:
            precondition(Int64(Int32.min)...Int64(Int32.max) ~= number, "\(number) does not fit int4")
            put(4)
            put(UInt32(bitPattern: Int32(truncatingIfNeeded: number)))
        case .text, .bool:
            preconditionFailure("an integer element in an array of \(element)")
        }
    }

    /// Appends a boolean element; the array must be of `bool`.
    mutating func append(_ flag: Bool) {
        precondition(element == .bool, "a boolean element in an array of \(element)")
        count += 1
        put(1)
        body.append(flag ? 1 : 0)
    }

    mutating func appendNull() {
        count += 1
        hasNull = true
        put(UInt32.max)  // -1
    }

    /// The array in binary form, to bind (as bytes: the connection sends bytes in binary format).
    var value: SQLValue {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + body.count)
        func put(_ word: UInt32) {
            withUnsafeBytes(of: word.bigEndian) { bytes.append(contentsOf: $0) }
        }
        put(count == 0 ? 0 : 1)
        put(hasNull ? 1 : 0)
        put(element.rawValue)
        if count > 0 {
            put(UInt32(count))
            put(1)
        }
        bytes.append(contentsOf: body)
        return .blob(bytes)
    }

    private mutating func put(_ word: UInt32) {
        withUnsafeBytes(of: word.bigEndian) { body.append(contentsOf: $0) }
    }
}
