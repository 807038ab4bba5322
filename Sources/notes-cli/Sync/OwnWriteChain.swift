import NotesCore

/// The changes-feed spans of this sync's own batches, chained from the cursor the index held when
/// the push began, so the cursor moves over the folder's own writes without reading them back.
///
/// Each batch answer names the span of the feed its writes took (`cursor_before` →
/// `cursor_after`: nothing else was written between). From the start cursor, a span that begins
/// where the chain has reached extends it to the span's end; a span answered before the one it
/// follows (batches in flight, applied by the server in another order) waits until the
/// chain reaches it. A span that never links, because another device wrote between two batches
/// or a batch's answer was lost, leaves the chain short of it: the cursor never passes a change
/// this folder has not applied, and the pull after the push reads the feed from where it stopped.
///
/// The chain starts only from a cursor the index holds after a pull that reached the feed's end
/// (not a resync stopped halfway, nor a page left for the next sync), and only from a delta cursor:
/// a `full-N` walk's text never equals a batch's plain `N`.
struct OwnWriteChain: Equatable {
    /// Where the chain has reached: every change up to it is applied here. `nil`: no chain.
    private(set) var reach: String?
    /// Spans answered but not linked yet, by their start.
    private var waiting: [String: String] = [:]
    /// Batch answers that gave a span.
    private(set) var spans = 0
    /// Whether a batch wrote without saying where (a server before the fields, one of a mixed
    /// deployment), so the chain cannot vouch for the whole push.
    private(set) var unspannedWrites = false

    /// A chain from `cursor`, the index's cursor after a pull that reached the feed's end; `nil`
    /// when there is none (no chain: every span then waits, and the pull after the push runs).
    init(from cursor: String?) {
        reach = cursor
    }

    /// Takes in one batch answer's span (or, without one, whether the batch applied any write)
    /// and returns the cursor the chain reaches now, when that moved.
    mutating func add(_ answer: BatchResponse) -> String? {
        guard let span = answer.feedSpan else {
            if answer.results.contains(where: { $0.status == 200 || $0.status == 201 }) { unspannedWrites = true }
            return nil
        }
        spans += 1
        waiting[span.before] = span.after
        guard let start = reach else { return nil }
        var end = start
        while let next = waiting.removeValue(forKey: end) { end = next }
        guard end != start else { return nil }
        reach = end
        return end
    }

    /// Whether every write of the push is in the chain, so the cursor stands past all of them and
    /// reading the feed back would only bring them again (and another device's change made after
    /// the last batch, which the next sync or a watch's poll brings).
    var coversPush: Bool { reach != nil && spans > 0 && waiting.isEmpty && !unspannedWrites }
}
