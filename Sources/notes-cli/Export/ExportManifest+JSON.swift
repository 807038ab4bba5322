import Foundation
import NotesCore

extension ExportManifest {
    /// The manifest as `JSONEncoder` with `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]`
    /// writes it, byte for byte, plus a final newline (`ExportManifestJSONTests` compares the two).
    ///
    /// Written by hand because an export saves the manifest twice (claiming the files, then
    /// vouching for them), and `JSONEncoder` boxing and sorting 10,000 entries was a twentieth
    /// of exporting 10,000 notes.
    func prettyJSON() -> [UInt8] {
        // Keys sorted by their UTF-8 bytes, as the encoder sorts them.
        let entries = files.sorted { Self.utf8Precedes($0.key, $1.key) }
        var out: [UInt8] = []
        out.reserveCapacity(128 + entries.reduce(0) { $0 + $1.key.utf8.count + 80 })
        func append(_ text: StaticString) {
            text.withUTF8Buffer { out.append(contentsOf: $0) }
        }
        append("{\n  \"files\" : {")
        if entries.isEmpty {
            append("\n\n  }")
        } else {
            for (index, entry) in entries.enumerated() {
                append(index == 0 ? "\n    " : ",\n    ")
                WireJSONWriter.appendString(entry.key, to: &out)
                append(" : ")
                if let hash = entry.value {
                    WireJSONWriter.appendString(hash, to: &out)
                } else {
                    append("null")
                }
            }
            append("\n  }")
        }
        append(",\n  \"format\" : ")
        out.append(contentsOf: String(format).utf8)
        append(",\n  \"generator\" : ")
        WireJSONWriter.appendString(generator, to: &out)
        append("\n}\n")
        return out
    }

    /// Whether `a`'s UTF-8 bytes sort before `b`'s: `memcmp` over native strings' contiguous
    /// bytes, where the generic `lexicographicallyPrecedes` walked them one at a time.
    static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        let answer = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b -> Bool in
                let common = min(a.count, b.count)
                if common > 0, let x = a.baseAddress, let y = b.baseAddress {
                    let order = memcmp(x, y, common)
                    if order != 0 { return order < 0 }
                }
                return a.count < b.count
            }
        }
        return (answer ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
