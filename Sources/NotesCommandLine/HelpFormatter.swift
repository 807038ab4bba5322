/// Writes a command's `--help` from its spec: the usage lines, the discussion, the commands of a
/// group, the options (with those passed down from groups above), then the epilogue.
struct HelpFormatter {
    let program: String
    let root: CommandSpec

    /// Help lines are wrapped to this many columns.
    static let width = 96
    /// Option names wider than this put their help on the next line.
    static let nameColumn = 26

    func help(for path: [String]) -> String {
        guard let spec = root.descendant(path) else { return help(for: []) }
        let words = ([program] + path).joined(separator: " ")
        var sections: [String] = []
        if path.isEmpty { sections.append("\(program): \(spec.abstract)") }
        let usage = usageLines(spec, path: path, words: words)
        sections.append(usage.enumerated().map { ($0.offset == 0 ? "Usage: " : "       ") + $0.element }.joined(separator: "\n"))
        if !path.isEmpty { sections.append(spec.discussion.isEmpty ? spec.abstract : spec.discussion) }
        else if !spec.discussion.isEmpty { sections.append(spec.discussion) }
        if !spec.subcommands.isEmpty {
            sections.append("Commands:\n" + table(spec.subcommands.map { ($0.name, $0.abstract) }))
        }
        let withHelp = spec.positionals.filter { !$0.help.isEmpty }
        if !withHelp.isEmpty {
            sections.append("Arguments:\n" + table(withHelp.map { ($0.name, $0.help) }))
        }
        var options = ParsedCommand.scope(of: path, in: root).map { option in
            (Self.names(option), Self.help(option))
        }
        options.append(("-h, --help", path.isEmpty ? "Show help (also `\(program) help <command>`)" : "Show this help"))
        sections.append("Options:\n" + table(options))
        if !spec.epilogue.isEmpty { sections.append(spec.epilogue) }
        return sections.joined(separator: "\n\n") + "\n"
    }

    /// The hand-written forms, or one generated: `notes sync [DIR] [--dry-run] [--json] ...`,
    /// `notes token <create|list|revoke> [options]`.
    private func usageLines(_ spec: CommandSpec, path: [String], words: String) -> [String] {
        if !spec.usage.isEmpty { return spec.usage.map { words + " " + $0 } }
        var parts = [words]
        if !spec.subcommands.isEmpty {
            parts.append(path.isEmpty ? "<command>" : "<" + spec.subcommands.map(\.name).joined(separator: "|") + ">")
            return [(parts + ["[options]"]).joined(separator: " ")]
        }
        parts += spec.positionals.map(\.synopsis)
        let options = ParsedCommand.scope(of: path, in: root).map { $0.required ? $0.synopsis : "[" + $0.synopsis + "]" }
        let full = (parts + options).joined(separator: " ")
        if full.count + 7 <= Self.width || options.isEmpty { return [full] }
        return [(parts + ["[options]"]).joined(separator: " ")]
    }

    /// `-u, --username NAME` or `--json`.
    static func names(_ option: OptionSpec) -> String {
        (option.short.map { "-\($0), " } ?? "") + option.synopsis
    }

    static func help(_ option: OptionSpec) -> String {
        if case .value(_, _, let defaultValue?) = option.arity, !option.help.contains("default") {
            return option.help + " (default: \(defaultValue))"
        }
        return option.help
    }

    /// Two columns: names indented by two, their text aligned and wrapped.
    private func table(_ rows: [(String, String)]) -> String {
        let column = min((rows.map(\.0.count).max() ?? 0) + 4, Self.nameColumn)
        return rows.map { name, text in
            let lines = Self.wrap(text, width: Self.width - column)
            let indent = String(repeating: " ", count: column)
            let first = "  " + name
            var out: [String] = []
            if first.count + 2 > column {
                out.append(first)
                out += lines.map { indent + $0 }
            } else {
                out.append(first + String(repeating: " ", count: column - first.count) + (lines.first ?? ""))
                out += lines.dropFirst().map { indent + $0 }
            }
            return out.map { $0.trailingSpacesTrimmed }.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// `text` broken into lines of at most `width` characters at spaces; a newline in `text`
    /// always breaks.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = ""
                }
                line += (line.isEmpty ? "" : " ") + word
            }
            lines.append(line)
        }
        return lines
    }
}

extension String {
    var trailingSpacesTrimmed: String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
