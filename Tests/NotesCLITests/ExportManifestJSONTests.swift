import Foundation
import Testing
@testable import notes_cli

/// The hand-written manifest JSON (`ExportManifest.prettyJSON`) against what `JSONEncoder` wrote
/// before it: a re-export compares the bytes on disk, so any difference would rewrite manifests.
@Suite("notes export manifest JSON")
struct ExportManifestJSONTests {
    private static func foundationJSON(_ manifest: ExportManifest) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(manifest)) + [0x0A]
    }

    @Test("an empty manifest")
    func empty() throws {
        let manifest = ExportManifest()
        #expect(manifest.prettyJSON() == (try Self.foundationJSON(manifest)))
    }

    @Test("hashes, claimed files (null) and awkward paths, sorted as the encoder sorts them")
    func awkwardPaths() throws {
        var manifest = ExportManifest()
        let paths = ["b.html", "a/b.html", "a-b.html", "A.html", "Ä.html", "A\u{308}.html", "é/ü.html", "z\u{2028}.html",
                     "quote\"d.html", "back\\slash.html", "tab\t.html", "nl\n.html", "cr\r.html", "bell\u{7}.html",
                     "bs\u{8}.html", "ff\u{C}.html", "del\u{7F}.html", "emoji😀.html", "folder/sub/x.html", "日本.html", "style.css"]
        for (index, path) in paths.enumerated() {
            manifest.files[path] = index.isMultiple(of: 3) ? .some(nil) : String(repeating: "ab", count: 32)
        }
        let ours = manifest.prettyJSON()
        #expect(ours == (try Self.foundationJSON(manifest)), "\(String(decoding: ours, as: UTF8.self))")
        #expect(try JSONDecoder().decode(ExportManifest.self, from: Data(ours)) == manifest)
    }

    @Test("another generator and format still match")
    func otherFields() throws {
        var manifest = ExportManifest(format: 7, generator: "notes \"export\"/x", files: ["x.html": "00"])
        manifest.files["y.html"] = .some(nil)
        #expect(manifest.prettyJSON() == (try Self.foundationJSON(manifest)))
    }
}
