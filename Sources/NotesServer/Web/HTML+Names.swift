import NotesCore

/// Names (paths, titles, folders) as the web app shows them: escaped like any text, with each
/// hidden character (`HiddenCharacters`) marked as `⟨U+200B⟩`, so a name that looks like another
/// one can be told apart. The stored name is never changed.
extension HTML {
    /// `text` escaped, with a visible mark after each hidden character. A zero-width or blank
    /// character stays in the text before its mark, so a name copied from the page is the
    /// name (the marks are left out of a selection by `.char-mark`'s `user-select: none`); a
    /// direction control is replaced by its mark, since shown it would reorder the text after it.
    static func name(_ text: String) -> HTML {
        guard text.unicodeScalars.contains(where: HiddenCharacters.contains) else { return "\(text)" }
        var result: HTML = ""
        var run = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard HiddenCharacters.contains(scalar) else {
                run.append(scalar)
                continue
            }
            if !HiddenCharacters.isDirectionControl(scalar) { run.append(scalar) }
            let mark = "⟨" + HiddenCharacters.codePoint(scalar) + "⟩"
            result = result + "\(String(run))<span class=\"char-mark\" title=\"\(HiddenCharacters.name(of: scalar))\">\(mark)</span>"
            run = String.UnicodeScalarView()
        }
        return result + "\(String(run))"
    }
}

extension HTML.Interpolation {
    /// A name shown to people: `\(name: path)` escapes it and marks its hidden characters (`HTML.name`).
    mutating func appendInterpolation(name: String) {
        appendInterpolation(HTML.name(name))
    }
}
