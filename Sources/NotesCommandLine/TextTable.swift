/// A list as every command line list prints it (`notes ls -l`, `notes log`, `notes token list`;
/// meant for the server's admin lists too): one style, chosen by where the output goes.
///
/// On a terminal a person reads it: a header line, then the columns aligned with two spaces.
/// Into a pipe or file a script reads it: one tab-separated line per row and no header, so the
/// lines stay the same whatever the widths are and `cut -f` works (`--json` gives everything).
/// Cells must already be printable (no control characters, no tabs): callers escape server text.
public struct TextTable: Sendable {
    public let header: [String]
    public private(set) var rows: [[String]] = []

    public init(header: [String]) {
        self.header = header
    }

    /// Adds a row; it has as many cells as the header has columns.
    public mutating func append(_ row: [String]) {
        precondition(row.count == header.count, "a table row has one cell per column")
        rows.append(row)
    }

    /// The table as text, each line ending in a newline; empty when there are no rows and it is
    /// not for a terminal.
    public func render(forTerminal: Bool) -> String {
        guard forTerminal else { return rows.map { $0.joined(separator: "\t") + "\n" }.joined() }
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }.joined() + "\n"
        }.joined()
    }
}
