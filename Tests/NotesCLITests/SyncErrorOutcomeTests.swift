import Foundation
import NotesTestSupport
import Testing
@testable import notes_cli

/// The sync layer's failures keep their cause in their own language (`FolderError`,
/// `LockError`, `AccountMismatch`, `WatchError`), and `CLI.outcome(of:)` alone picks their exit
/// code (docs/architecture.md, section 4.1).
@Suite("Sync errors: exit codes and sentences chosen at the top")
struct SyncErrorOutcomeTests {
    private struct Cause: Error, CustomStringConvertible {
        var description: String { "disk I/O error" }
    }

    @Test("a folder whose index cannot be opened exits 1, naming the index and the cause")
    func unopenableIndexExitsOneWithItsCause() throws {
        let folder = try TemporaryDirectory("notes-folder-error")
        defer { folder.remove() }
        let bound = SyncFolder(root: folder.url.path, config: SyncFolder.Config(server: "http://127.0.0.1:9", device: "d", caseInsensitive: false))
        try FileManager.default.createDirectory(atPath: bound.indexPath, withIntermediateDirectories: true)  // a folder where the file goes
        let error = try #require(throws: FolderError.self) { _ = try bound.openIndex() }
        guard case .cannotOpenIndex(let path, _) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(path == bound.indexPath)
        let outcome = CLI.outcome(of: error)
        #expect(outcome.exitCode == .failure)
        #expect(outcome.sentence.hasPrefix("cannot open the sync index \(bound.indexPath): "), "\(outcome.sentence)")
    }

    @Test("a lock another process holds exits 1 and names the watcher holding it")
    func takenLockExitsOneNamingTheWatcher() throws {
        let folder = try TemporaryDirectory("notes-lock-error")
        defer { folder.remove() }
        let path = folder.url.path + "/lock"
        let held = try SyncLock(path: path, holder: .watcher)
        defer { withExtendedLifetime(held) {} }
        // flock locks belong to the open file: a second open in this process is refused as another process would be.
        let error = try #require(throws: LockError.self) { _ = try SyncLock(path: path) }
        guard case .taken(_, let holder) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(holder?.kind == .watcher)
        #expect(holder?.pid == getpid())
        let outcome = CLI.outcome(of: error)
        #expect(outcome.exitCode == .failure)
        #expect(outcome.sentence.hasPrefix("a watcher (`notes sync --watch`, pid \(getpid())) is running in this folder"), "\(outcome.sentence)")
    }

    @Test("each sync failure maps to its documented exit code and a sentence that keeps the cause")
    func everyCaseHasItsExitCodeAndSentence() {
        var refused = SyncReport()
        refused.massDelete = MassDeleteCheck(side: .remote, deleting: 30, total: 40, folder: "/n")
        let cases: [(any Error, ExitCode, String)] = [
            (FolderError.cannotReadIndex(path: "/n/.notes/index.sqlite", cause: Cause()), .failure,
             "cannot read the sync index /n/.notes/index.sqlite: disk I/O error"),
            (FolderError.cannotRemove(path: "/n/.notes/index.sqlite", errno: EACCES), .failure,
             "cannot remove /n/.notes/index.sqlite: Permission denied"),
            (FolderError.noFreeConflictName(path: "a.md"), .failure, "cannot find a free name for a conflict copy of a.md"),
            (LockError.cannotOpen(path: "/n/.notes/lock", errno: EACCES), .failure, "cannot open the sync lock /n/.notes/lock: Permission denied"),
            (AccountMismatch(answeredFor: "bob", folder: "/n", boundAccount: "alice", server: "http://s"), .signInRequired,
             "the server answered with the notes of bob, but /n belongs to alice on http://s; nothing was changed."),
            (MassDeleteRefusal(report: refused), .failure, "this sync would delete 30 of 40 notes in /n"),
            (WatchError.stopped(root: "/n", cause: ClientError.sessionEnded), .signInRequired,
             "stopped watching /n: session expired or revoked: run `notes login`"),
            (WatchError.stopped(root: "/n", cause: MassDeleteRefusal(report: refused)), .failure,
             "stopped watching /n: this sync would delete 30 of 40 notes in /n"),
            (WatchError.cannotWatch(root: "/n", errno: EMFILE), .failure, "cannot watch /n for changes: inotify_init1: Too many open files"),
        ]
        for (error, exitCode, sentence) in cases {
            let outcome = CLI.outcome(of: error)
            #expect(outcome.exitCode == exitCode, "\(error)")
            #expect(outcome.sentence.hasPrefix(sentence), "\(outcome.sentence)")
        }
    }
}
