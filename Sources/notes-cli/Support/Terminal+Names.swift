import NotesCore

/// Names (paths) as the client shows them to people.
extension Terminal {
    /// `name` as `printable(_:)` makes it, and on a terminal also each hidden character
    /// (`HiddenCharacters`: a zero-width space, a byte-order mark, a word joiner...) written as
    /// `\u{200b}`, so a name that looks like another one can be told apart. Into a pipe those stay
    /// as they are, so a script can pass a listed name on (`--json` keeps every name exact).
    static func printableName(_ name: String, onTerminal: Bool) -> String {
        let shown = printable(name)
        guard onTerminal, shown.unicodeScalars.contains(where: HiddenCharacters.contains) else { return shown }
        var result = String.UnicodeScalarView()
        for scalar in shown.unicodeScalars {
            if HiddenCharacters.contains(scalar) {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// `printableName(name, onTerminal:)` for what this command writes to stdout.
    func shownName(_ name: String) -> String {
        Self.printableName(name, onTerminal: stdoutIsTTY)
    }
}
