import Foundation
import NotesCore

/// What one sync knows and has done so far, handed from phase to phase (`PullPhase`,
/// `ApplyPhase`, `PushPhase`): the folder's notes, the report, and what the scan learned that
/// every phase reads. What only one phase needs is that phase's own.
///
/// A value its caller holds, so that after a sync that throws, `report.local` still says what
/// changed here (offline `notes status`).
struct SyncRun {
    /// The folder's notes as the scan found them, changed as the sync goes. Never made when
    /// neither the folder nor the server changed (`SyncEngine.finishUnchanged`).
    var state: FolderState
    var report = SyncReport()
    /// The rules of `.notesignore`, read at the start of the sync.
    var ignore = IgnoreRules()
    /// The server's limits as far as the sync learned them (the defaults until then).
    var limits = ResponseBudget.defaultLimits

    /// A run of `folder` not started yet.
    init(folder: SyncFolder, dryRun: Bool) {
        state = FolderState(caseInsensitive: folder.config.caseInsensitive)
        report.dryRun = dryRun
    }

    var noteLimit: Int { limits.maxNoteBytes }
    var attachmentLimits: AttachmentLimits { AttachmentLimits(limits) }

    /// The path key for lookups: case-folded where the filesystem folds case.
    func key(_ path: String) -> String { state.key(path) }

    /// Tracked notes that exist on the server (a create not yet confirmed does not count).
    var confirmedCount: Int { state.confirmedCount }

    /// Records `tracked` in the folder state and the pending index changes.
    mutating func track(_ tracked: TrackedNote, changes: inout [IndexChange]) {
        state.track(tracked)
        changes.append(.upsert(tracked.row))
    }

    /// Forgets a tracked note entirely (deleted on both sides, or on the server).
    mutating func untrack(_ id: NoteID, changes: inout [IndexChange]) {
        state.untrack(id)
        changes.append(.remove(id))
    }

    /// Lets go of the folder state (every tracked note's row) on a thread of its own, once the
    /// run is over and its report taken: a command exits right after, and freeing 10,000 notes'
    /// strings and tables one by one (~5 % of a no-op sync's CPU) need not delay it.
    mutating func releaseState() {
        guard !state.tracked.isEmpty else { return }  // never made (an unchanged folder): nothing to free
        let state = self.state
        self.state = FolderState(caseInsensitive: state.caseInsensitive)
        Thread { withExtendedLifetime(state) {} }.start()
    }
}
