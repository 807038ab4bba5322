import Foundation
import NotesCore
import Synchronization

/// Renders large notes off the HTTP threads and Swift's cooperative pool, on a small pool of its
/// own, a bounded number per user.
///
/// `MarkdownPreflight` bounds what one rendering costs (a fraction of a second for the largest
/// note); this bounds how many run at once, so that a user with many large notes asked for at
/// once, or strangers opening a published one, hold at most this pool, never every connection
/// thread. Past a user's share or the queue's length the answer is 503 with `Retry-After`,
/// decided before any work is queued.
final class RenderWorker: Sendable {
    /// Notes up to this many bytes render on the connection thread: within the preflight's
    /// bound that is at most a few milliseconds, less than the hop to the pool.
    static let inlineBytes = 64 * 1024

    private let pool: WorkPool
    private let maxWaiting: Int
    private let perUser: Int
    private let running = Mutex<[Int64: Int]>([:])

    /// - Parameters:
    ///   - concurrency: renderings at once (one core's worth by default).
    ///   - maxWaiting: renderings queued or running, for everyone, before new ones are refused.
    ///   - perUser: renderings queued or running for one user (the note's owner).
    init(concurrency: Int = 1, maxWaiting: Int = 32, perUser: Int = 4) {
        pool = WorkPool(name: "notes.render", concurrency: concurrency)
        self.maxWaiting = maxWaiting
        self.perUser = perUser
    }

    /// Whether `markdown` renders on the connection thread rather than here: a small note, or
    /// one past the preflight's bound (shown as its escaped text, one linear pass, never parsed).
    static func rendersInline(_ markdown: String, flavour: MarkdownFlavour? = nil, with rendering: NoteRendering) -> Bool {
        markdown.utf8.count <= inlineBytes || rendering.refuses(markdown, flavour: flavour)
    }

    /// Renderings admitted and not yet finished (queued or running), for everyone.
    var inFlight: Int { running.withLock { $0.values.reduce(0, +) } }

    /// Runs `work` (a rendering for `userID`'s note) on the pool.
    /// - Throws: `HTTPError` 503 `busy` when the user's share or the queue is full.
    func run<T: Sendable>(for userID: Int64, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        let admitted = running.withLock { counts -> Bool in
            let total = counts.values.reduce(0, +)
            guard counts[userID, default: 0] < perUser, total < maxWaiting else { return false }
            counts[userID, default: 0] += 1
            return true
        }
        guard admitted else {
            throw HTTPError(503, code: "busy", message: "The server is busy rendering notes; retry shortly.", headers: ["Retry-After": "1"])
        }
        defer {
            running.withLock { counts in
                counts[userID, default: 1] -= 1
                if counts[userID] == 0 { counts[userID] = nil }
            }
        }
        return try await pool.run(work)
    }
}
