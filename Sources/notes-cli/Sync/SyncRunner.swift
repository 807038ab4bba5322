import Foundation
import NotesCore

/// Runs a sync of a bound folder for a command: lock, index, client, engine, and the output
/// (summary line or `--json`, warnings and a progress bar on stderr).
enum SyncRunner {
    /// Syncs `folder` and prints the outcome.
    /// - Returns: 0, or 3 when conflict copies were made (DESIGN 3).
    static func run(_ folder: SyncFolder, options: SyncOptions, json: Bool, terminal: Terminal) async throws -> ExitCode {
        let lock = try SyncLock(path: folder.lockPath)
        let index: SyncIndex
        do {
            index = try SyncIndex(path: folder.indexPath)
        } catch {
            throw CLIError.failure("cannot open the sync index \(folder.indexPath): \(error)")
        }
        // The folder's own account; each changes page is checked to be its (DESIGN 4.12).
        let bound = try await CommandSupport.client(forFolder: folder, terminal, tokenCheck: .byChangesFeed)
        var options = options
        let progress = ProgressLine(enabled: terminal.stderrIsTTY && !json)
        options.progress = { phase, done, total in progress.show(phase, done, total) }
        let remote = AccountCheckedRemote(APISyncRemote(client: bound.client), bound: bound)
        let engine = SyncEngine(folder: bound.folder, index: index, remote: remote, options: options)
        let report: SyncReport
        do {
            report = try await engine.run()
        } catch {
            progress.clear()
            try? index.close()
            throw error
        }
        progress.clear()
        try? index.close()
        withExtendedLifetime(lock) {}
        if json {
            try CommandSupport.printJSON(report, terminal)
        } else {
            for warning in report.warnings { terminal.printError("notes: \(warning)") }
            if options.dryRun {
                let verbs: [SyncReport.Action: String] = [.uploaded: "upload", .downloaded: "download", .renamed: "rename",
                                                          .deleted: "delete", .merged: "merge"]
                for change in report.changes { terminal.print("  \(verbs[change.action] ?? "sync")  \(change.path)") }
            }
            terminal.print(report.summary)
            for copy in report.conflicts { terminal.print("  conflict copy: \(copy)") }
        }
        return report.conflicts.isEmpty ? .success : .conflicts
    }
}

/// A one-line progress display on stderr, redrawn in place; only on a terminal.
final class ProgressLine: Sendable {
    let enabled: Bool

    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// Shows `phase` with `done` of `total` items as a bar (a plain count when the total is
    /// unknown, as for the changes feed). Short syncs never reach it: the engine reports only
    /// after whole pages and batches.
    func show(_ phase: String, _ done: Int, _ total: Int) {
        guard enabled else { return }
        var text = "\(phase) \(done)"
        if total > 0 {
            let width = 24
            let filled = min(width, done * width / total)
            text = "\(phase) [" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
                + "] \(done)/\(total)"
        }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
    }

    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
