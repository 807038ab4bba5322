import Foundation
import NotesCore
import NotesCommandLine

/// How `notes sync --watch` runs: its command-line options, and the test hooks that make its
/// timers short enough for an end-to-end suite.
struct WatchSettings: Sendable {
    /// How long the folder must stay quiet after a local change before it syncs
    /// (`--quiet-period`): a burst of saves becomes one sync.
    var quietPeriod: Duration = .seconds(1)
    /// Between two polls of the changes feed when the server does not hold requests (no long
    /// poll): what a remote change may wait before it is seen.
    var pollInterval: Duration = .seconds(15)
    /// The longest wait between retries while the server cannot be reached.
    var maxBackoff: Duration = .seconds(60)
    /// A full rescan this often, as a safety net for any event the kernel did not deliver.
    var rescanInterval: Duration = .seconds(3600)
    /// The longest a long poll may ask the server to hold it.
    static let maxLongPoll = 60
    /// JSON lines instead of text (`--json`).
    var json = false
    /// Passed on to every sync (`--allow-mass-delete`).
    var allowMassDelete = false
    /// Test hook: the first batch of file events is treated as a lost queue (`IN_Q_OVERFLOW`).
    var injectOverflow = false

    /// However busy the folder, a pending local change syncs this long after the first one.
    var maxDelay: Duration { max(quietPeriod * 10, .seconds(10)) }

    /// The settings for `quietPeriod`, with the test hooks read from `environment`:
    /// `NOTES_TEST_WATCH_POLL` and `NOTES_TEST_WATCH_MAX_BACKOFF` (seconds, fractions allowed)
    /// and `NOTES_TEST_WATCH_OVERFLOW=1`. They exist for the test suite and the bench only.
    init(quietPeriod: Duration = .seconds(1), json: Bool = false, allowMassDelete: Bool = false,
         environment: [String: String] = [:]) {
        self.quietPeriod = quietPeriod
        self.json = json
        self.allowMassDelete = allowMassDelete
        if let poll = environment["NOTES_TEST_WATCH_POLL"].flatMap(Self.seconds) { pollInterval = poll }
        if let backoff = environment["NOTES_TEST_WATCH_MAX_BACKOFF"].flatMap(Self.seconds) { maxBackoff = backoff }
        injectOverflow = environment["NOTES_TEST_WATCH_OVERFLOW"] == "1"
    }

    /// Parses a duration given as `1s`, `500ms` or plain seconds (`0.2`), from 0 to an hour.
    /// - Throws: `UsageError` for anything else.
    static func duration(_ text: String, option: String) throws(UsageError) -> Duration {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        var number = Substring(trimmed), scale = 1.0
        if number.hasSuffix("ms") {
            number = number.dropLast(2)
            scale = 0.001
        } else if number.hasSuffix("s") {
            number = number.dropLast()
        }
        guard let value = Double(number), value.isFinite, value >= 0, value * scale <= 3600 else {
            throw UsageError("\(option) takes a duration such as 1s, 500ms or 0.2 (seconds, at most an hour), not '\(text)'")
        }
        return .milliseconds(Int((value * scale * 1000).rounded()))
    }

    private static func seconds(_ text: String) -> Duration? {
        guard let value = Double(text), value.isFinite, value > 0 else { return nil }
        return .milliseconds(Int((value * 1000).rounded()))
    }
}
