import NotesCore
import Synchronization

/// Stops a walk of the changes feed that no longer makes progress, so a broken or hostile
/// server cannot keep the client paging forever with `has_more`.
///
/// The feed lists notes in revision order, each once at its latest state, so every page that
/// promises more must bring a revision newer than all the walk has seen, under a new cursor. A
/// page that does not (empty, the same notes again, the same cursor) ends the walk with an
/// error; and a walk is bounded in entries and pages whatever the server invents, far above
/// what any account holds. State is kept per cursor handed out, so asking for the same page
/// twice (metadata first, then content) or looking ahead (the mass-delete count) is no problem.
final class FeedProgress: Sendable {
    private struct Walk {
        var newestRev = Int64.min
        var entries = 0
        var pages = 0
    }

    /// Feed entries one walk may return: 10 × the 100,000 notes the client is designed for.
    static let maxEntries = 1_000_000
    /// Pages one walk may take (one large note per page at worst).
    static let maxPages = 100_000

    private let walks = Mutex<[String: Walk]>([:])

    /// Checks `page`, the answer for `since` (nil or a cursor not handed out here: a new walk).
    /// - Throws: `ClientError.protocolViolation` when the page promises more without progress.
    func check(_ page: ChangesPage, since: String?) throws {
        guard page.hasMore else { return }
        try walks.withLock { walks in
            let before = since.flatMap { walks[$0] } ?? Walk()
            let stuck = "the server's changes feed promises more but"
            guard page.cursor != since else {
                throw ClientError.protocolViolation("\(stuck) did not move past cursor \(Terminal.printable(page.cursor)); stopped reading it")
            }
            guard let newest = page.changes.map(\.rev).max(), newest > before.newestRev else {
                throw ClientError.protocolViolation("\(stuck) sent no change newer than those it already sent; stopped reading it")
            }
            let after = Walk(newestRev: newest, entries: before.entries + page.changes.count, pages: before.pages + 1)
            guard after.entries <= Self.maxEntries, after.pages <= Self.maxPages else {
                throw ClientError.protocolViolation("\(stuck) has gone on for \(after.pages) pages and \(after.entries) changes, "
                                       + "more than any account holds; stopped reading it")
            }
            walks[page.cursor] = after
        }
    }
}
