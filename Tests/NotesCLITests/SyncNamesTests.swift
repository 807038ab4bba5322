import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// File names as users write them, over the real server and binaries: every name a script
/// needs syncs byte-exact, and a name sync cannot store is never changed in the user's folder.
@Suite("Sync of names scripts write, and of names it cannot store")
struct SyncNamesTests {
    /// Real names: Khmer and Thai write U+200B ZERO WIDTH SPACE between words, Persian needs
    /// U+200C ZERO WIDTH NON-JOINER, Hindi U+200D ZERO WIDTH JOINER, and a family emoji is a
    /// ZWJ sequence.
    static let scriptNames = [
        "km/Plugins/\u{179A}\u{17B6}\u{1794}\u{17CB}\u{200B}\u{1796}\u{17B6}\u{1780}\u{17D2}\u{1799}.md",  // រាប់​ពាក្យ
        "km/\u{17AF}\u{1780}\u{179F}\u{17B6}\u{179A} \u{1793}\u{17B7}\u{1784} \u{1790}\u{178F}/"
            + "\u{1782}\u{17D2}\u{179A}\u{1794}\u{17CB}\u{1782}\u{17D2}\u{179A}\u{1784}\u{200B}\u{179C}\u{17C9}\u{17B6}\u{179B}\u{17CB}.md",  // ឯកសារ និង ថត/គ្រប់គ្រង​វ៉ាល់
        "th/\u{0E20}\u{0E32}\u{0E29}\u{0E32}\u{200B}\u{0E44}\u{0E17}\u{0E22}.md",  // ภาษา​ไทย
        "fa/\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}.md",  // می‌خواهم
        "hi/\u{0915}\u{094D}\u{200D}\u{0937}\u{0924}\u{094D}\u{0930}\u{093F}\u{092F}.md",  // क्‍षत्रिय
        "family \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}.md",  // 👨‍👩‍👧‍👦
    ]

    /// Every file under folder `name` (not `.notes/`), by the UTF-8 bytes of its path, with its bytes.
    private func byteTree(_ h: LiveServer, _ name: String) throws -> [[UInt8]: Data] {
        Dictionary(uniqueKeysWithValues: try h.tree(name).map { (Array($0.key.utf8), $0.value) })
    }

    @Test("names with zero-width spaces (Khmer, Thai), a non-joiner (Persian), a joiner (Hindi) and an emoji ZWJ sequence sync byte-exact to a second folder and back")
    func scriptNamesRoundTripByteExact() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            for (index, path) in Self.scriptNames.enumerated() { try h.write("a", path, "# \(index)\n[[\(path)]]\n") }
            let up = try await h.sync("a")
            #expect(up.uploaded == Self.scriptNames.count && up.conflicts.isEmpty && up.skipped.isEmpty, "\(up)")
            let server = try await h.serverNotes()
            #expect(Set(server.keys.map { Array($0.utf8) }) == Set(Self.scriptNames.map { Array($0.utf8) }), "\(server.keys)")
            let original = try byteTree(h, "a")
            #expect(Set(original.keys) == Set(Self.scriptNames.map { Array($0.utf8) }), "the names in the folder stay as written")

            try await h.initFolder("b")
            try await h.sync("b")
            #expect(try byteTree(h, "b") == original)

            // And back: an edit made under each name in the second folder reaches the first.
            for path in Self.scriptNames { try h.write("b", path, "edited \(path)\n") }
            let edits = try await h.sync("b")
            #expect(edits.uploaded == Self.scriptNames.count && edits.skipped.isEmpty, "\(edits)")
            let down = try await h.sync("a")
            #expect(down.downloaded == Self.scriptNames.count && down.conflicts.isEmpty, "\(down)")
            #expect(try byteTree(h, "a") == byteTree(h, "b"))
            #expect(h.read("a", Self.scriptNames[0]) == "edited \(Self.scriptNames[0])\n")
        }
    }

    @Test("a file whose name sync cannot store stays where it is, named at every sync with its reason (exit 1), and syncs once renamed")
    func unsyncableNameIsLeftAloneAndReported() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("seed.md", "s\n")])
            let refused = ["back\\slash.md", "tab\there.md", "invoice\u{202E}dm.exe.md"]
            for path in refused { try h.write("a", path, "text of \(path)\n") }
            let before = try byteTree(h, "a")

            let status = try await h.status("a")
            #expect(status.conflicts.isEmpty && Set(status.skipped.map(\.path)) == Set(refused), "\(status)")
            for _ in 1...2 {
                let result = try await h.notes(["sync", h.folder("a"), "--json"])
                #expect(result.exitCode == 1, "a script must notice: \(result.stderr)")
                let report = try WireJSON.decoder().decode(SyncReport.self, from: Data(result.stdout.utf8))
                #expect(report.conflicts.isEmpty && report.uploaded == 0, "\(report)")
                #expect(report.skipped.map(\.reason) == [.unsyncableName, .unsyncableName, .unsyncableName])
                #expect(Set(report.skipped.map(\.path)) == Set(refused))
                #expect(report.skipped.first { $0.path == "back\\slash.md" }?.detail == "the path contains a backslash")
                #expect(try byteTree(h, "a") == before, "the user's files keep their names and bytes")
                #expect(try await h.serverNotes() == ["seed.md": "s\n"])
            }
            // For people: each file named on stderr with the reason and a name that would sync.
            let human = try await h.notes(["sync", h.folder("a")])
            #expect(human.exitCode == 1)
            #expect(human.stderr.contains("left alone back\\slash.md: the path contains a backslash; rename it (such as back-slash.md) to sync it"),
                    "\(human.stderr)")
            #expect(human.stderr.contains("invoice\\u{202e}dm.exe.md"), "a direction override is shown, never obeyed: \(human.stderr)")

            try h.move("a", "back\\slash.md", "back-slash.md")
            try h.remove("a", "tab\there.md")
            try h.remove("a", "invoice\u{202E}dm.exe.md")
            let renamed = try await h.sync("a")
            #expect(renamed.uploaded == 1 && renamed.skipped.isEmpty, "\(renamed)")
            #expect(try await h.serverNotes() == ["seed.md": "s\n", "back-slash.md": "text of back\\slash.md\n"])
        }
    }

    @Test("a note whose file is renamed to a name sync cannot store stays on the server and in other folders, and is renamed there once the name can be stored")
    func noteRenamedToAnUnsyncableNameIsHeld() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("todo.md", "milk\n"), ("seed.md", "s\n")])
            try h.move("a", "todo.md", "to\\do.md")
            let status = try await h.status("a")
            #expect(status.deleted == 0 && status.local.isEmpty, "\(status)")
            let held = try await h.sync("a", expect: 1)
            #expect(held.deleted == 0 && held.skipped.map(\.path) == ["to\\do.md"], "\(held)")
            #expect(try await h.serverNotes() == ["todo.md": "milk\n", "seed.md": "s\n"])
            #expect(h.read("a", "to\\do.md") == "milk\n" && h.read("a", "todo.md") == nil)
            try await h.sync("b")
            #expect(h.read("b", "todo.md") == "milk\n")

            try h.move("a", "to\\do.md", "to-do.md")
            let renamed = try await h.sync("a")
            #expect(renamed.renamed == 1 && renamed.uploaded == 0 && renamed.deleted == 0, "\(renamed)")
            #expect(try await h.serverNotes() == ["to-do.md": "milk\n", "seed.md": "s\n"])
            try await h.sync("b")
            #expect(h.read("b", "to-do.md") == "milk\n" && h.read("b", "todo.md") == nil)
        }
    }
}
