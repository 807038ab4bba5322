import Foundation

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
                Self.appendJSONString(entry.key, to: &out)
                append(" : ")
                if let hash = entry.value {
                    Self.appendJSONString(hash, to: &out)
                } else {
                    append("null")
                }
            }
            append("\n  }")
        }
        append(",\n  \"format\" : ")
        out.append(contentsOf: String(format).utf8)
        append(",\n  \"generator\" : ")
        Self.appendJSONString(generator, to: &out)
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

    /// `text` as a JSON string, escaped as Foundation's encoder escapes it: `"` and `\` with a
    /// backslash, the five short control escapes, other control characters as `\u00XX`, and
    /// everything else (`/` and non-ASCII included) as its own UTF-8 bytes.
    static func appendJSONString(_ text: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0..<0x20:
                out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
