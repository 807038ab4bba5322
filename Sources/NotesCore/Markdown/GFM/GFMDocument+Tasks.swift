extension GFMDocument {
    /// The task list items (`- [ ] …`, `- [x] …`) in document order, each with whether it is
    /// ticked. An item is one when cmark-gfm's tasklist extension claimed it.
    func taskItems() -> [(node: OpaquePointer, checked: Bool)] {
        guard let tasklist = library.findSyntaxExtension("tasklist") else { return [] }
        var found: [(node: OpaquePointer, checked: Bool)] = []
        forEachNode { node, event, type, _ in
            guard event == GFMEvent.enter, type == GFMNodeType.item, library.nodeGetSyntaxExtension(node) == tasklist else { return }
            found.append((node, library.tasklistItemChecked(node)))
        }
        return found
    }

    /// Numbers the task items in document order, before any pass removes one (a task inside a
    /// `%%comment%%`), so that a task keeps the number `NoteTasks` gives it from the source.
    func numberTasks() {
        for (index, task) in taskItems().enumerated() {
            _ = library.nodeSetUserData(task.node, UnsafeMutableRawPointer(bitPattern: index + 1))
        }
    }

    /// Renders each numbered task's checkbox enabled, as a control of the form `formID`
    /// (`form` attribute: the form lies outside the note), named `done` with the task's number
    /// as its value, instead of the disabled checkbox cmark-gfm writes.
    func makeTasksInteractive(formID: String) {
        let form = HTMLEscaping.escape(formID)
        for task in taskItems() {
            guard let number = library.nodeGetUserData(task.node).map({ Int(bitPattern: $0) - 1 }), number >= 0 else { continue }
            _ = library.nodeSetSyntaxExtension(task.node, nil)
            let checkbox = "<input type=\"checkbox\" class=\"task\" form=\"\(form)\" name=\"done\" value=\"\(number)\""
                + (task.checked ? " checked" : "") + "> "
            guard let first = firstChild(of: task.node) else {
                append(newCustom(block: true, enter: checkbox, exit: ""), to: task.node)
                continue
            }
            if type(of: first) == GFMNodeType.paragraph {
                let box = newCustom(block: false, enter: checkbox, exit: "")
                if let inline = firstChild(of: first) { insert(box, before: inline) } else { append(box, to: first) }
            } else {
                insert(newCustom(block: true, enter: checkbox, exit: ""), before: first)
            }
        }
    }
}
