import Foundation
import NotesCore

/// Runs a sync of a bound folder for a command: lock, index, client, engine, and the output
/// (summary line or `--json`, warnings and a progress bar on stderr).
///
/// `notes sync` and `notes status` (a dry run) come through here and print one report shape.
enum SyncRunner {
    /// Syncs `folder` (or, with `options.dryRun`, says what a sync would do) and prints the outcome.
    /// - Returns: 0, or 3 when a sync made conflict copies; 5 for a dry run that could not reach
    ///   the server (the local changes are printed all the same) (docs/architecture.md, section 4.1).
    /// - Throws: `MassDeleteRefusal` when the guard stops a real sync (after printing its report).
    static func run(_ folder: SyncFolder, options: SyncOptions, json: Bool, terminal: Terminal) async throws -> ExitCode {
        // A dry run writes nothing, so it takes no lock and runs beside a sync or a watcher; it
        // reads the index frozen at one moment instead (`SyncIndex.freezeForReading`).
        let lock = options.dryRun ? nil : try SyncLock(path: folder.lockPath)
        // The walk first, on its own thread: opening the index and the client (~3 ms) overlap it.
        let walk = LocalScan.startWalk(of: folder)
        let index = try folder.openIndex()
        defer { try? index.close() }
        if options.dryRun {
            do {
                try index.freezeForReading()
            } catch {
                throw FolderError.cannotReadIndex(path: folder.indexPath, cause: error)
            }
        }
        // The folder's own account; each changes page is checked to be its (docs/architecture.md, Sync invariants 12).
        let bound = try await CommandSupport.client(forFolder: folder, terminal, tokenCheck: .byChangesFeed)
        var options = options
        let progress = ProgressLine(enabled: terminal.stderrIsTTY && !json && !options.dryRun)  // a dry run uploads nothing
        options.progress = { phase, done, total in progress.show(phase, done, total) }
        let remote = AccountCheckedRemote(APISyncRemote(client: bound.client), bound: bound)
        let engine = SyncEngine(folder: bound.folder, index: index, remote: remote, options: options)
        var run = engine.newRun()
        var report: SyncReport
        var exit = ExitCode.success
        do {
            report = try await engine.run(&run, walk: walk)
        } catch let refusal as MassDeleteRefusal {
            progress.clear()
            report = refusal.report
            if !options.dryRun {
                // The same report as `notes status` gives, then the failure (exit 1).
                if json { try CommandSupport.printJSON(report, terminal) }
                throw refusal
            }
        } catch let error as ClientError where error.isUnreachable && options.dryRun {
            // Offline status: what changed here is known from the index and the scan alone.
            progress.clear()
            report = run.report
            report.remote = .unknown
            report.warnings.append(CLI.outcome(of: error).sentence)
            exit = .serverUnreachable
        } catch let error as ClientError where error.apiStatus?.code == "read_only_space" && !options.dryRun {
            // A viewer's folder: what was pulled stays; each local change is named once, then exit 1.
            progress.clear()
            for change in run.report.local {
                terminal.printError("notes: kept local (the space is read-only for you): \(terminal.shownName(change.path))")
            }
            throw error
        } catch {
            progress.clear()
            throw error
        }
        progress.clear()
        run.releaseState()
        withExtendedLifetime(lock) {}
        try show(report, json: json, terminal: terminal)
        if exit == .success && !options.dryRun && !report.conflicts.isEmpty { exit = .conflicts }
        if exit == .success && !options.dryRun && report.leftOutFilesForTheUser { exit = .failure }
        return exit
    }

    /// Prints `report`: JSON on stdout, or for people its warnings on stderr and, for a dry run,
    /// the local changes and each planned change, then the summary.
    private static func show(_ report: SyncReport, json: Bool, terminal: Terminal) throws {
        if json {
            try CommandSupport.printJSON(report, terminal)
            return
        }
        for warning in report.warnings { terminal.printError("notes: \(warning)") }
        if report.dryRun {
            if !report.local.isEmpty {
                terminal.print("Changed here since the last sync:")
                for change in report.local {
                    let from = change.from.map { " (from \(terminal.shownName($0)))" } ?? ""
                    terminal.print("  \(change.change.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(terminal.shownName(change.path))\(from)")
                }
            }
            guard report.remote == .known else {
                terminal.print("The server could not be reached: what changed there, and what a sync would do, is unknown.")
                return
            }
            let verbs: [SyncReport.Action: String] = [.uploaded: "upload", .downloaded: "download", .renamed: "rename",
                                                      .deleted: "delete", .merged: "merge"]
            for change in report.changes { terminal.print("  \(verbs[change.action] ?? "sync")  \(terminal.shownName(change.path))") }
        }
        terminal.print(report.summary)
        for conflict in report.conflicts {
            terminal.print("  conflict copy of \(terminal.shownName(conflict.path)) (\(conflict.reason.rawValue)): \(terminal.shownName(conflict.copy))")
        }
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
