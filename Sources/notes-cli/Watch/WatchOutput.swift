import Foundation
import NotesCore
import Synchronization

/// What a watching sync prints: one line per sync that did something and one per change of
/// state, each stamped with the UTC time; nothing for a cycle that found nothing to do.
/// `--json` prints the same as JSON lines on stdout (`{"time", "event", ...}`), for a script
/// or a service manager's journal.
final class WatchOutput: Sendable {
    /// What a line is about.
    enum Event: String, Codable, Sendable {
        /// Watching has started (after the first sync).
        case watching
        /// A sync changed something; the line says what.
        case synced
        /// The server cannot be reached; the watcher retries by itself.
        case offline
        /// The server answers again.
        case online
        /// The session ended, and a newer one stored by a sign-in on this machine was taken up.
        case sessionRenewed = "session_renewed"
        /// The session ended and no newer one exists: the watcher stops (exit 4).
        case signedOut = "signed_out"
        /// A sync or a request failed for a reason other than the network; it is retried.
        case failed
        /// Something worth knowing that changes nothing (a file left alone, a limit reached).
        case warning
        /// Stopped by a signal, after the step in progress.
        case stopped
    }

    /// One JSON line.
    private struct Line: Encodable {
        var time: String
        var event: Event
        var message: String?
        var report: SyncReport?
    }

    private let json: Bool
    private let terminal: Terminal
    /// The warnings the last printed sync gave, so the same ones are not repeated every cycle.
    private let lastWarnings = Mutex<[String]>([])

    init(json: Bool, terminal: Terminal) {
        self.json = json
        self.terminal = terminal
    }

    /// A state line: `2026-12-01T08:40:12Z offline: cannot reach ...`; `message` is the whole
    /// sentence after the time (the JSON line has it as `message`).
    func state(_ event: Event, _ message: String) {
        emit(Line(time: Self.now(), event: event, message: message))
    }

    /// The line for a finished sync, when it did something or warned of something new.
    func synced(_ report: SyncReport) {
        let newWarnings = lastWarnings.withLock { last in
            defer { last = report.warnings }
            return report.warnings != last ? report.warnings.filter { !last.contains($0) } : []
        }
        guard !report.isNoOp || !newWarnings.isEmpty else { return }
        let time = Self.now()
        if json {
            emit(Line(time: time, event: .synced, report: report))
            return
        }
        if !report.isNoOp {
            var lines = ["\(time) \(Self.describe(report))"]
            for conflict in report.conflicts {
                lines.append("  conflict copy of \(conflict.path) (\(conflict.reason.rawValue)): \(conflict.copy)")
            }
            terminal.print(lines.map { Terminal.printable($0) }.joined(separator: "\n"))
        }
        for warning in newWarnings { terminal.printError("\(time) warning: \(warning)") }
    }

    /// "synced: uploaded a.md, b.md; downloaded c.md (+3 more)": what moved, by action.
    static func describe(_ report: SyncReport) -> String {
        let shown = 6
        var parts: [String] = []
        for action in [SyncReport.Action.uploaded, .downloaded, .renamed, .deleted, .merged] {
            let paths = report.changes.filter { $0.action == action }.map(\.path)
            guard !paths.isEmpty else { continue }
            parts.append("\(action.rawValue) " + paths.prefix(shown).joined(separator: ", ")
                         + (paths.count > shown ? " (+\(paths.count - shown) more)" : ""))
        }
        if !report.conflicts.isEmpty {
            parts.append("\(report.conflicts.count) conflict cop\(report.conflicts.count == 1 ? "y" : "ies")")
        }
        return "synced: " + parts.joined(separator: "; ")
    }

    private func emit(_ line: Line) {
        if json {
            let encoder = WireJSON.encoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(line) else { return }
            terminal.print(String(decoding: data, as: UTF8.self))
        } else if [.offline, .failed, .warning, .signedOut].contains(line.event) {
            terminal.printError("\(line.time) \(line.message ?? line.event.rawValue)")
        } else {
            terminal.print(Terminal.printable("\(line.time) \(line.message ?? line.event.rawValue)"))
        }
    }

    private static func now() -> String {
        // Wall-clock time for people to read, never for deciding anything.
        ISO8601DateFormatter().string(from: Date())
    }
}
