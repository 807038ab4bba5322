import Foundation
import NotesCommandLine
import NotesCore

/// How every admin `list` prints (`user list`, `sessions list`): with `--json` one JSON array
/// with the API's snake_case keys, otherwise a `TextTable` (a header and aligned columns on a
/// terminal, tab-separated lines for a script).
enum AdminListing {
    static func printJSON(_ items: some Encodable) throws {
        printLine(String(decoding: try WireJSON.encoder().encode(items), as: UTF8.self))
    }

    static func print(_ table: TextTable) {
        FileHandle.standardOutput.write(Data(table.render(forTerminal: isatty(STDOUT_FILENO) == 1).utf8))
    }
}
