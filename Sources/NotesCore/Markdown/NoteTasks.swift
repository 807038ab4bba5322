/// The task list items of a note (`- [ ] to do`, `- [x] done`) as the default flavour reads
/// them, numbered as the rendered page numbers their checkboxes (`FlavouredRenderer.taskForm`),
/// and the note with tasks ticked or cleared: the web app's task toggle.
///
/// A change rewrites one byte per task, the space or `x` between the brackets, and nothing else
/// of the note.
public struct NoteTasks: Sendable {
    /// One task: whether it is ticked, and where its state byte is.
    public struct Task: Sendable, Equatable {
        public let checked: Bool
        /// The offset in the note's UTF-8 of the byte between the brackets; nil when it could
        /// not be found (then the task cannot be changed).
        let stateOffset: Int?
    }

    /// The note's text.
    public let note: String
    /// Every task, numbered from 0 in document order.
    public let tasks: [Task]

    /// Reads the tasks of `note`.
    /// - Throws: `CmarkGFMError` when the default flavour's library cannot be loaded here.
    public init(_ note: String) throws(CmarkGFMError) {
        self.note = note
        let library = try CmarkGFM.shared.get()
        tasks = Array(note.utf8).withUnsafeBufferPointer { note in
            library.exclusively {
                let bodyStart = FrontMatter.split(note)?.bodyStart ?? 0
                let body = UnsafeBufferPointer(rebasing: note[bodyStart...])
                let document = FlavouredRenderer().parse(body, library: library)
                return document.taskItems().map { item in
                    let offset = Self.stateOffset(in: body, line: Int(library.nodeGetStartLine(item.node)),
                                                  column: Int(library.nodeGetStartColumn(item.node)))
                    return Task(checked: item.checked, stateOffset: offset.map { bodyStart + $0 })
                }
            }
        }
    }

    /// The note with exactly the tasks numbered in `ticked` ticked and every other one cleared.
    /// Numbers past the last task are ignored: check them against `tasks.count` first.
    public func setting(ticked: Set<Int>) -> String {
        var bytes = Array(note.utf8)
        for (number, task) in tasks.enumerated() where ticked.contains(number) != task.checked {
            guard let offset = task.stateOffset else { continue }
            bytes[offset] = task.checked ? UInt8(ascii: " ") : UInt8(ascii: "x")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The numbers of the ticked tasks.
    public var ticked: Set<Int> {
        Set(tasks.indices.filter { tasks[$0].checked })
    }

    /// The offset of the state byte of the task whose list item starts at `line` and `column`
    /// (cmark's, from 1; the column a byte offset): the first `[ ]`, `[x]` or `[X]` from the
    /// item's marker on, where only the marker, spaces and block quote marks can come before it.
    static func stateOffset(in body: UnsafeBufferPointer<UInt8>, line: Int, column: Int) -> Int? {
        // Line ends as cmark counts them: LF, CRLF or CR.
        var lineStart = 0
        var current = 1
        var index = 0
        while current < line, index < body.count {
            if body[index] == UInt8(ascii: "\n") || body[index] == UInt8(ascii: "\r") {
                if body[index] == UInt8(ascii: "\r"), index + 1 < body.count, body[index + 1] == UInt8(ascii: "\n") { index += 1 }
                current += 1
                lineStart = index + 1
            }
            index += 1
        }
        guard current == line else { return nil }
        var position = lineStart + max(column - 1, 0)
        // The checkbox follows the marker within a few bytes (or on the next line of a lazily
        // started item): a bounded look.
        let end = min(body.count - 2, position + 256)
        while position < end {
            let state = body[position + 1]
            if body[position] == UInt8(ascii: "["), body[position + 2] == UInt8(ascii: "]"),
               state == UInt8(ascii: " ") || state == UInt8(ascii: "\t") || state == UInt8(ascii: "x") || state == UInt8(ascii: "X") {
                return position + 1
            }
            position += 1
        }
        return nil
    }
}
