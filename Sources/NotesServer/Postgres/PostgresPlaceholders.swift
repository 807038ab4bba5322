/// Turns the `?` placeholders the stores write (SQLite's spelling) into PostgreSQL's `$1`, `$2`, …
/// so one statement text serves both backends.
///
/// `?NNN` becomes `$NNN`. A `?` inside a string literal (`'...'`, with `''` escapes), a quoted identifier (`"..."`), a
/// line comment (`-- ...`) or a block comment (`/* ... */`) is left alone. Dollar-quoted
/// strings are not recognised: a statement with a literal `?` in one is written with `$n`
/// placeholders throughout, which pass through unchanged (never mix the two spellings).
enum PostgresPlaceholders {
    /// The statement with `$n` placeholders, and how many there are.
    static func translate(_ sql: String) -> (sql: String, count: Int) {
        var output = ""
        output.reserveCapacity(sql.utf8.count + 16)
        var count = 0
        var scalars = sql.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        /// Copies scalars up to and including `end`, for the inside of a literal or comment.
        func copy(until end: Unicode.Scalar) {
            while let next = scalars.next() {
                output.unicodeScalars.append(next)
                if next == end { return }
            }
        }
        while let scalar = pending ?? scalars.next() {
            pending = nil
            switch scalar {
            case "?":
                // `?NNN` (SQLite's numbered form, one value used twice) keeps its number.
                var digits = ""
                while let next = scalars.next() {
                    guard ("0"..."9").contains(next) else {
                        pending = next
                        break
                    }
                    digits.unicodeScalars.append(next)
                }
                if let number = Int(digits) {
                    count = max(count, number)
                    output += "$\(number)"
                } else {
                    count += 1
                    output += "$\(count)"
                }
            case "'", "\"":
                // A doubled quote ('' or "") inside simply closes and reopens: same result.
                output.unicodeScalars.append(scalar)
                copy(until: scalar)
            case "-":
                output.unicodeScalars.append(scalar)
                guard let next = scalars.next() else { break }
                if next == "-" {
                    output.unicodeScalars.append(next)
                    copy(until: "\n")
                } else {
                    pending = next
                }
            case "/":
                output.unicodeScalars.append(scalar)
                guard let next = scalars.next() else { break }
                if next == "*" {
                    output.unicodeScalars.append(next)
                    var previous: Unicode.Scalar = " "
                    while let inner = scalars.next() {
                        output.unicodeScalars.append(inner)
                        if previous == "*" && inner == "/" { break }
                        previous = inner
                    }
                } else {
                    pending = next
                }
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        return (output, count)
    }
}
