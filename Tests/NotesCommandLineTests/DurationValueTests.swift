import NotesCommandLine
import Testing

@Suite("Durations typed on the command line")
struct DurationValueTests {
    @Test("a number with a unit, or bare seconds", arguments: [
        ("45s", 45), ("90m", 5400), ("1h", 3600), ("30d", 2_592_000), ("2w", 1_209_600), ("3600", 3600), ("0", 0),
    ])
    func accepted(text: String, seconds: Int) {
        #expect(DurationValue.seconds(text) == seconds)
    }

    @Test("anything else is refused", arguments: ["", "h", "-1d", "+5m", "1.5h", "1y", "1 h", "10H", "٣s", "99999999999999w"])
    func refused(text: String) {
        #expect(DurationValue.seconds(text) == nil)
    }
}
