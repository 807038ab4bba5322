/// A `Range: bytes=...` request header (RFC 9110 §14.2) resolved against a file's size.
///
/// One range only: `first-last`, `first-` or `-suffix`. A header in another unit or with several
/// ranges is ignored (the whole file answers 200), as the RFC allows; a well-formed range that
/// starts past the end is unsatisfiable (416).
enum ByteRange: Equatable {
    /// No usable range: send everything (200).
    case whole
    /// Send `length` bytes from `offset` (206).
    case partial(offset: Int64, length: Int64)
    /// Nothing of the file lies in the range (416).
    case unsatisfiable

    init(header: String?, size: Int64) {
        guard let header, let spec = header.trimmingSpaces.strippingPrefix("bytes=") else {
            self = .whole
            return
        }
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let firstText = spec[..<dash].trimmingSpaces
        let lastText = spec[spec.index(after: dash)...].trimmingSpaces
        if firstText.isEmpty {
            guard let suffix = Self.number(lastText) else { self = .whole; return }
            guard suffix > 0, size > 0 else { self = .unsatisfiable; return }
            let length = min(suffix, size)
            self = .partial(offset: size - length, length: length)
            return
        }
        guard let first = Self.number(firstText) else { self = .whole; return }
        var last = size - 1
        if !lastText.isEmpty {
            guard let given = Self.number(lastText), given >= first else { self = .whole; return }
            last = min(given, size - 1)
        }
        guard first < size else { self = .unsatisfiable; return }
        self = .partial(offset: first, length: last - first + 1)
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }
}

private extension StringProtocol {
    var trimmingSpaces: SubSequence {
        let start = firstIndex(where: { $0 != " " && $0 != "\t" }) ?? endIndex
        let end = lastIndex(where: { $0 != " " && $0 != "\t" }).map { index(after: $0) } ?? start
        return self[start..<Swift.max(start, end)]
    }

    func strippingPrefix(_ prefix: String) -> SubSequence? {
        guard lowercased().hasPrefix(prefix) else { return nil }
        return self[index(startIndex, offsetBy: prefix.count)...]
    }
}
