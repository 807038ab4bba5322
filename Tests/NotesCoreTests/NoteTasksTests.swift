import Testing
@testable import NotesCore

/// Task checkboxes a click can tick: numbered as the source numbers them, and the source
/// changed in exactly one byte per task.
@Suite("Note tasks")
struct NoteTasksTests {
    private static func html(_ note: String, form: String? = "note-tasks") throws -> String {
        try FlavouredRenderer(taskForm: form).render(Array(note.utf8)).html
    }

    @Test("with a task form, checkboxes render enabled, each belonging to the form with its number; without one, disabled as GFM has them")
    func interactiveCheckboxes() throws {
        #expect(try Self.html("- [ ] open\n- [x] done\n") == """
            <ul>
            <li><input type="checkbox" class="task" form="note-tasks" name="done" value="0"> open</li>
            <li><input type="checkbox" class="task" form="note-tasks" name="done" value="1" checked> done</li>
            </ul>

            """)
        #expect(try Self.html("- [ ] open\n", form: nil) == "<ul>\n<li><input type=\"checkbox\" disabled=\"\" /> open</li>\n</ul>\n")
        let loose = try Self.html("1. [x] first\n\n   more\n2. [ ] <script>alert(1)</script> second\n")
        #expect(loose.contains("<li>\n<p><input type=\"checkbox\" class=\"task\" form=\"note-tasks\" name=\"done\" value=\"0\" checked> first</p>"))
        #expect(!loose.contains("<script>") && !loose.contains("disabled"))
        #expect(try Self.html("- [ ] x\n", form: "a\"><script>").contains("form=\"a&quot;&gt;&lt;script&gt;\""))
    }

    @Test("a task hidden in a %%comment%% keeps its number, so the numbers stay the source's")
    func numbersSurviveComments() throws {
        let note = "- [ ] a\n\n%%\n- [ ] hidden\n%%\n\n- [ ] c\n"
        let html = try Self.html(note)
        #expect(html.contains("value=\"0\"> a") && html.contains("value=\"2\"> c") && !html.contains("hidden"))
        let tasks = try NoteTasks(note)
        #expect(tasks.tasks.count == 3)
        #expect(tasks.setting(ticked: [2]) == "- [ ] a\n\n%%\n- [ ] hidden\n%%\n\n- [x] c\n")
    }

    @Test("ticking and clearing changes only the byte between the brackets, after front matter, in ordered and nested lists and CRLF notes")
    func settingChangesOneByteEach() throws {
        let note = "---\ntitle: T\n---\nIntro [ ] not a task\r\n\r\n- [ ] first\r\n- [X] big x\r\n\r\n3) [ ] ordered\r\n   - [x] nested\r\n\r\n```\n- [ ] code\n```\n"
        let tasks = try NoteTasks(note)
        #expect(tasks.tasks.map(\.checked) == [false, true, false, true])
        #expect(tasks.ticked == [1, 3])
        #expect(tasks.setting(ticked: [0, 2]) == "---\ntitle: T\n---\nIntro [ ] not a task\r\n\r\n- [x] first\r\n- [ ] big x\r\n\r\n3) [x] ordered\r\n   - [ ] nested\r\n\r\n```\n- [ ] code\n```\n")
        #expect(tasks.setting(ticked: tasks.ticked) == note, "the same ticks change nothing")
        #expect(try NoteTasks("no tasks [ ] here\n").tasks.isEmpty)
        // cmark-gfm reads no task list inside a block quote; the page shows none there either.
        #expect(try NoteTasks("> - [ ] quoted\n").tasks.isEmpty)
    }
}
