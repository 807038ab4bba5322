import Testing
@testable import NotesCore

@Suite("Sync .notesignore rules")
struct SyncIgnoreRulesTests {
    @Test func namesMatchAtAnyDepth() {
        let rules = IgnoreRules(parsing: "# drafts\n\ndraft.md\n*.tmp.md\n")
        #expect(rules.isIgnored("draft.md"))
        #expect(rules.isIgnored("a/b/draft.md"))
        #expect(rules.isIgnored("x.tmp.md"))
        #expect(rules.isIgnored("deep/x.tmp.md"))
        #expect(!rules.isIgnored("drafts.md"))
        #expect(!rules.isIgnored("notes/keep.md"))
    }

    /// A pattern without a `/` is matched against the path's last name alone (`anyDepthName`):
    /// it must mean what `**/` and the pattern against the whole path meant, at any depth and
    /// never across a `/`, for every kind of pattern part.
    @Test func namePatternsMatchTheLastNameOnlyNeverAcrossASlash() {
        let rules = IgnoreRules(parsing: "x*y\na?b\nc[!d]e\nf[/]g\n[0-9]*.tmp\n\\#lit#\nnew\n")
        #expect(rules.isIgnored("xanyy"))
        #expect(rules.isIgnored("deep/er/xzzy"))
        #expect(!rules.isIgnored("x/y"), "`*` does not cross a folder")
        #expect(!rules.isIgnored("ax/yb"))
        #expect(rules.isIgnored("q/acb") && !rules.isIgnored("a/b"), "`?` is one character, never `/`")
        #expect(rules.isIgnored("cxe") && !rules.isIgnored("c/e"), "a class never matches `/`")
        #expect(!rules.isIgnored("f/g"))
        #expect(rules.isIgnored("n/5abc.tmp") && !rules.isIgnored("n/abc.tmp"))
        #expect(rules.isIgnored("a/#lit#"))
        #expect(rules.isIgnored("new") && rules.isIgnored("a/new/b.md"), "a folder of that name, at any depth")
        #expect(!rules.isIgnored("renew") && !rules.isIgnored("new.md") && !rules.isIgnored("a/newer/b.md"))
    }

    /// A `*` followed by plain text is matched at the end only (`Glob`'s shortcut); it must
    /// mean what trying every place meant: never across a `/`, the tail exactly at the end.
    @Test func starWithPlainTailMatchesTheEndWithinOneSegment() {
        #expect(Glob.matches(Array("*.swp".unicodeScalars)[...], Array("a.swp".unicodeScalars)[...]))
        #expect(Glob.matches(Array("*.swp".unicodeScalars)[...], Array(".swp".unicodeScalars)[...]))
        #expect(!Glob.matches(Array("*.swp".unicodeScalars)[...], Array("a.swpx".unicodeScalars)[...]))
        #expect(!Glob.matches(Array("*.swp".unicodeScalars)[...], Array("swp".unicodeScalars)[...]))
        #expect(!Glob.matches(Array("*.swp".unicodeScalars)[...], Array("a/b.swp".unicodeScalars)[...]))
        #expect(Glob.matches(Array("a*/b.md".unicodeScalars)[...], Array("abc/b.md".unicodeScalars)[...]))
        #expect(!Glob.matches(Array("a*/b.md".unicodeScalars)[...], Array("a/x/b.md".unicodeScalars)[...]))
        #expect(Glob.matches(Array("x*".unicodeScalars)[...], Array("x".unicodeScalars)[...]))
        #expect(!Glob.matches(Array("x*".unicodeScalars)[...], Array("x/y".unicodeScalars)[...]))
        let editors = IgnoreRules.editorTemporaryFiles
        #expect(editors.isIgnored("notes/a.md.swp"))
        #expect(editors.isIgnored("notes/a.md~"))
        #expect(editors.isIgnored("a~/b.md"), "inside a folder the rule names")
        #expect(!editors.isIgnored("notes/a.md"))
        #expect(!editors.isIgnored("notes/a.swp.md"))
        #expect(!editors.isIgnored("a~b/c.md"))
        // Empty segments (doubled, leading and trailing slashes) are not segments.
        let rules = IgnoreRules(parsing: "/top/x.md\nfolder/\n")
        #expect(rules.isIgnored("//top//x.md"))
        #expect(rules.isIgnored("a//folder/b.md"))
        #expect(!rules.isIgnored("a/folder"), "a file is not a folder")
        #expect(!rules.isIgnored("a/folder/"), "nor with a trailing slash (dropped, as an empty segment)")
    }

    @Test func anchoredPatternsMatchFromTheRoot() {
        let rules = IgnoreRules(parsing: "/top.md\narchive/old/*.md\n")
        #expect(rules.isIgnored("top.md"))
        #expect(!rules.isIgnored("sub/top.md"))
        #expect(rules.isIgnored("archive/old/a.md"))
        #expect(!rules.isIgnored("archive/old/deeper/a.md"))
        #expect(!rules.isIgnored("x/archive/old/a.md"))
    }

    @Test func foldersAndDoubleStar() {
        let rules = IgnoreRules(parsing: "private/\nlogs/**/debug.md\n")
        #expect(rules.isIgnored("private/a.md"))
        #expect(rules.isIgnored("x/private/y/a.md"))
        #expect(!rules.isIgnored("private.md"))  // a folder rule does not match a file
        #expect(rules.isIgnored("logs/debug.md"))
        #expect(rules.isIgnored("logs/2025/11/debug.md"))
        #expect(!rules.isIgnored("logs/info.md"))
    }

    @Test func negationAndLastRuleWins() {
        let rules = IgnoreRules(parsing: "*.md\n!keep.md\nsecret/\n!secret/ok.md\n")
        #expect(rules.isIgnored("a.md"))
        #expect(!rules.isIgnored("keep.md"))
        #expect(!rules.isIgnored("sub/keep.md"))
        #expect(rules.isIgnored("secret/ok.md"))  // inside an ignored folder: stays ignored, as in git
    }

    @Test func classesAndQuestionMarks() {
        let rules = IgnoreRules(parsing: "day-[0-9][0-9].md\nv?.md\n[!a]x.md\n[z-a].md\n")
        #expect(rules.isIgnored("day-07.md"))
        #expect(!rules.isIgnored("day-7.md"))
        #expect(rules.isIgnored("v1.md"))
        #expect(!rules.isIgnored("v10.md"))
        #expect(rules.isIgnored("bx.md"))
        #expect(!rules.isIgnored("ax.md"))
        #expect(!rules.isIgnored("q.md"))  // an empty range matches nothing, and does not crash
    }

    @Test func crlfFilesAndTrailingSpaces() {
        let rules = IgnoreRules(parsing: "a.md  \r\nb.md\r\n")
        #expect(rules.isIgnored("a.md"))
        #expect(rules.isIgnored("b.md"))
        #expect(IgnoreRules().isEmpty)
        #expect(!IgnoreRules().isIgnored("a.md"))
    }

    @Test("editors' temporary files are ignored in every folder, and .notesignore can bring one back")
    func editorTemporaryFilesAreIgnoredByDefault() {
        let rules = IgnoreRules.folder(parsing: "draft.md\n!keep.md~\n")
        for path in ["4913", "sub/4913", ".a.md.swp", "a.md.swp", "x/a.md.swx", "a.md.swo", "a.md~", "sub/#a.md#", ".#a.md", "draft.md"] {
            #expect(rules.isIgnored(path), "\(path) should be ignored")
        }
        for path in ["a.md", "4913.md", "swp.md", "a~b.md", "#a.md", "a#b#.md", "keep.md~"] {
            #expect(!rules.isIgnored(path), "\(path) should sync")
        }
        #expect(IgnoreRules.editorTemporaryFiles == IgnoreRules.folder(parsing: "# only a comment\n"))
    }
}
