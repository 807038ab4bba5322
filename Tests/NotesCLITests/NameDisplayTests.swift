import Testing
@testable import notes_cli

/// How the client shows names to people: hidden characters written out on a terminal, the
/// exact name into a pipe.
@Suite("Names shown on a terminal")
struct NameDisplayTests {
    @Test("on a terminal a zero-width space or a byte-order mark in a name is written as \\u{...}; joiners stay")
    func hiddenCharactersAreWrittenOut() {
        #expect(Terminal.printableName("pass\u{200B}words.md", onTerminal: true) == "pass\\u{200b}words.md")
        #expect(Terminal.printableName("\u{FEFF}bom.md", onTerminal: true) == "\\u{feff}bom.md")
        let family = "family \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}.md"
        #expect(Terminal.printableName(family, onTerminal: true) == family)
        let persian = "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}.md"
        #expect(Terminal.printableName(persian, onTerminal: true) == persian)
    }

    @Test("into a pipe a name with a zero-width space stays exact, so a script can pass it on; controls and overrides never pass")
    func pipesKeepTheName() {
        let khmer = "\u{179A}\u{17B6}\u{1794}\u{17CB}\u{200B}\u{1796}\u{17B6}\u{1780}\u{17D2}\u{1799}.md"
        #expect(Terminal.printableName(khmer, onTerminal: false) == khmer)
        #expect(Terminal.printableName("evil\u{202E}dm.exe.md", onTerminal: false) == "evil\\u{202e}dm.exe.md")
        #expect(Terminal.printableName("a\u{1B}[31mred.md", onTerminal: false) == "a\\u{1b}[31mred.md")
    }
}
