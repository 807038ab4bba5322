import NotesCore

/// A line diff drawn as HTML: each line of the old and new text, marked kept, removed or added,
/// from `LineDiff`'s longest-common-subsequence matching (the one the three-way merge uses).
struct DiffView {
    enum Line: Equatable {
        case same(String), removed(String), added(String)
    }

    /// The lines in order, or nil when the texts differ too much to match line by line.
    let lines: [Line]?

    init(from old: String, to new: String) {
        let oldBytes = Array(old.utf8), newBytes = Array(new.utf8)
        let oldLines = LineDiff.lines(oldBytes).map { String(decoding: oldBytes[$0], as: UTF8.self) }
        let newLines = LineDiff.lines(newBytes).map { String(decoding: newBytes[$0], as: UTF8.self) }
        var numbers: [String: Int] = [:]
        let number = { (line: String) -> Int in
            if let known = numbers[line] { return known }
            numbers[line] = numbers.count
            return numbers.count - 1
        }
        let a = oldLines.map(number), b = newLines.map(number)
        guard let matched = LineDiff.match(a, b) else {
            lines = nil
            return
        }
        var result: [Line] = []
        var next = 0
        for (index, partner) in matched.enumerated() {
            guard partner >= 0 else {
                result.append(.removed(oldLines[index]))
                continue
            }
            while next < partner {
                result.append(.added(newLines[next]))
                next += 1
            }
            result.append(.same(oldLines[index]))
            next = partner + 1
        }
        while next < newLines.count {
            result.append(.added(newLines[next]))
            next += 1
        }
        lines = result
    }

    /// Whether the texts are the same.
    var isEmpty: Bool { lines?.allSatisfy { if case .same = $0 { true } else { false } } ?? false }

    func render() -> HTML {
        guard let lines else { return "<p class=\"empty\">The two texts are too different to compare line by line.</p>" }
        if isEmpty { return "<p class=\"empty\">No differences.</p>" }
        let rows = lines.map { line -> HTML in
            switch line {
            case .same(let text): "<div class=\"same\">\(Self.strip(text))</div>"
            case .removed(let text): "<div class=\"del\"><span class=\"visually-hidden\">removed: </span>\(Self.strip(text))</div>"
            case .added(let text): "<div class=\"ins\"><span class=\"visually-hidden\">added: </span>\(Self.strip(text))</div>"
            }
        }
        return """
            <p class="legend"><span>− removed</span><span>+ added</span></p>
            <div class="diff">\(rows)</div>
            """
    }

    private static func strip(_ line: String) -> String {
        line.hasSuffix("\r\n") ? String(line.dropLast(2)) : line.hasSuffix("\n") ? String(line.dropLast()) : line
    }
}
