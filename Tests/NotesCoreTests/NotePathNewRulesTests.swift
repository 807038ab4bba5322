import Testing
@testable import NotesCore

@Suite("Note paths: rules for new paths")
struct NotePathNewRulesTests {
    @Test("refuses the embedding, override and isolate controls in new paths, naming the character", arguments: [
        "evil\u{202E}dm.exe.md", "a\u{202A}b.md", "a\u{202B}b.md", "a\u{202C}b.md", "a\u{202D}b.md",
        "a\u{2066}b.md", "a\u{2067}b.md", "a\u{2068}b.md", "dir\u{2069}/b.md",
    ])
    func refusesBidiControls(_ raw: String) throws {
        let path = try NotePath(raw)  // still a valid path: stored ones keep working
        guard case .bidiControl(let what)? = path.newNoteProblem else {
            Issue.record("\(raw.unicodeScalars.map { String($0.value, radix: 16) }) was not refused as a direction control")
            return
        }
        #expect(what.hasPrefix("U+"))
        #expect(throws: NotePathError.self) { try NotePath.forNewNote(raw) }
    }

    @Test("the message names the character and says why")
    func messageNamesCharacter() throws {
        let bidi = try #require(try NotePath("x\u{202E}y.md").newNoteProblem)
        #expect(bidi.description == "the path contains U+202E RIGHT-TO-LEFT OVERRIDE, a text-direction control that can disguise a name and that no script needs")
    }

    @Test("allows every other name a script or a person may write, byte-exact", arguments: [
        "plain.md", "with inner spaces.md", "folder name/note name.md",
        "km/Plugins/\u{179A}\u{17B6}\u{1794}\u{17CB}\u{200B}\u{1796}\u{17B6}\u{1780}\u{17D2}\u{1799}.md",  // Khmer with ZWSP
        "\u{0E20}\u{0E32}\u{0E29}\u{0E32}\u{200B}\u{0E44}\u{0E17}\u{0E22}.md",  // Thai with ZWSP
        "family \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}.md",  // ZWJ emoji sequence
        "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}.md",  // Persian with ZWNJ
        "\u{0915}\u{094D}\u{200D}\u{0937}.md",  // Devanagari with ZWJ
        "\u{05E9}\u{05DC}\u{05D5}\u{05DD}.md", "\u{0645}\u{0631}\u{062D}\u{0628}\u{0627}.md",  // Hebrew, Arabic
        "\u{05E9}\u{05DC}\u{05D5}\u{05DD}\u{200F} 2026.md", "a\u{200E}b.md", "a\u{061C}b.md",  // direction marks
        "\u{2764}\u{FE0F} notes.md",  // variation selector
        "soft\u{00AD}hyphen.md", "word\u{2060}joiner.md", "\u{FEFF}bom.md", "a\u{2028}b.md", "\u{3164}filler.md",
        " leading.md", "trailing /note.md", "folder/ note.md", "a/\u{00A0}b.md", "\u{3000}x/y.md",
        "caf\u{E9}/r\u{E9}sum\u{E9}.md",
    ])
    func allowsOrdinaryNames(_ raw: String) throws {
        #expect(try NotePath(raw).newNoteProblem == nil)
        #expect(try NotePath.forNewNote(raw).value == NotePath(raw).value)
        #expect(try NotePath.forNewNote(raw).value.unicodeScalars.elementsEqual(raw.precomposedStringWithCanonicalMapping.unicodeScalars))
    }

    @Test("forNewNote applies the ordinary rules first")
    func forNewNoteKeepsOrdinaryRules() {
        #expect(throws: NotePathError.notMarkdown) { try NotePath.forNewNote("notes.txt") }
        #expect(throws: NotePathError.emptySegment) { try NotePath.forNewNote("a//b.md") }
    }
}
