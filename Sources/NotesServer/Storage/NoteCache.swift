import NotesCore
import Synchronization

/// Notes that `GET /v1/notes/{id}` read lately, kept so that reading one again makes no round
/// trip to the database: bounded in bytes, and never older than the last change its server heard.
///
/// It is only as fresh as what the server hears, so every way a change is heard forgets:
/// - A note write on this server commits through `NoteStore.write(for:)` (a purge by itself),
///   which tells the `ChangeNotifier`; the notifier calls `forget(user:)` before the request is
///   answered, so a client reads its own writes.
/// - On PostgreSQL, a change committed by another server arrives as a NOTIFY carrying the user
///   id; the listener calls `forget(user:)` for it, within a round trip of that commit.
/// - A read that raced a change never keeps what it read: the reader takes `mark()` *before* its
///   database read, and `keep` refuses when that user's notes were forgotten since.
/// - While changes could go unheard (the listener lost its connection, or has not connected yet)
///   the cache holds and keeps nothing: `suspend()`, then `resume()` once `LISTEN` is in place
///   again. Reads made before the resume are refused, since what committed meanwhile went unheard.
///
/// Keys are the account and the note id. The account is the user id *and* the account's creation
/// time: SQLite hands a deleted account's id to the next account made, and that account must never
/// find the old one's notes, even if the deletion (an admin command in another process) went
/// unheard. Only live notes are kept (a tombstone's answer changes when it is purged, which
/// signals nothing), each at most `maxEntryBytes` (its record; an encoded answer besides), all
/// together at most `budgetBytes` (records and encoded answers), the least recently read
/// dropped first.
///
/// A note read again gets its answer's JSON body and ETag (`Answer`) encoded once and kept with
/// it (`attachAnswer`), so later reads send those bytes as they are. A note read once costs no
/// more than its record, and a first read encodes its answer once, as without the cache. The
/// answer belongs to the entry: it shares its key (never another account's) and goes with it
/// when it is forgotten.
final class NoteCache: Sendable {
    /// The answer to `GET /v1/notes/{id}` for one note revision: its JSON body (`note.resource`
    /// as `WireJSONWriter` writes it) and its strong ETag.
    struct Answer: Sendable {
        let id: NoteID
        let rev: Int64
        let json: [UInt8]
        let etag: String

        /// Encodes `note`'s answer.
        init(_ note: NoteRecord) {
            id = note.id
            rev = note.rev
            json = note.resource.wireJSON()
            etag = Preconditions.etag(note.rev)
        }
    }

    /// A kept note, with its encoded answer once a read attached one.
    struct Kept: Sendable {
        let note: NoteRecord
        var answer: Answer?
    }

    /// Whose notes: see the type's documentation for why the creation time is part of it.
    struct Account: Hashable, Sendable {
        let userID: Int64
        let createdAt: Int64
    }

    /// Where the cache's forgetting stood before a database read (see `keep`).
    struct Mark: Sendable {
        fileprivate let value: UInt64
    }

    private struct Key: Hashable {
        let account: Account
        let id: NoteID
    }

    private struct State {
        var entries: LeastRecentlyUsed<Key, Kept>
        /// The keys held per user, so `forget(user:)` finds them.
        var keysByUser: [Int64: Set<Key>] = [:]
        /// Bumped by every forgetting; marks are its values.
        var clock: UInt64 = 0
        /// `clock` when each user's notes were last forgotten (pruned to `floor` past `maxForgotten`).
        var forgotten: [Int64: UInt64] = [:]
        /// Every user counts as forgotten at this value: a `forgetAll`, or `forgotten` pruned.
        var floor: UInt64 = 0
        /// False while changes could go unheard: nothing is held or kept.
        var hearing = true
    }

    /// The default bound on the notes kept together (content, path and the record's fields).
    static let defaultBudgetBytes = 16 << 20
    /// The default bound on one kept note: a larger one is read from the database each time.
    static let defaultMaxEntryBytes = 256 << 10
    /// Users whose last forgetting is remembered one by one; past that, all count as forgotten
    /// at once (which only refuses the reads in flight at that moment).
    private static let maxForgotten = 10_000
    /// What a kept record costs besides its strings: the struct, the keys, the index entries.
    private static let entryOverhead = 256

    let budgetBytes: Int
    let maxEntryBytes: Int
    private let state: Mutex<State>

    init(budgetBytes: Int = NoteCache.defaultBudgetBytes, maxEntryBytes: Int = NoteCache.defaultMaxEntryBytes) {
        self.budgetBytes = budgetBytes
        self.maxEntryBytes = maxEntryBytes
        state = Mutex(State(entries: LeastRecentlyUsed(budget: budgetBytes)))
    }

    /// The kept note `id` of `account`, or `nil`.
    func note(_ id: NoteID, of account: Account) -> NoteRecord? {
        kept(id, of: account)?.note
    }

    /// The kept note `id` of `account` with its encoded answer, or `nil`.
    func kept(_ id: NoteID, of account: Account) -> Kept? {
        state.withLock { state in
            guard state.hearing else { return nil }
            return state.entries.value(for: Key(account: account, id: id))
        }
    }

    /// Where forgetting stands now: take it before the database read whose note goes to `keep`.
    func mark() -> Mark {
        state.withLock { Mark(value: $0.clock) }
    }

    /// Keeps `note` of `account`, read from the database after `mark` was taken, unless that
    /// user's notes were forgotten since (the read may predate a change), the cache is not
    /// hearing changes, or the note is a tombstone or larger than `maxEntryBytes`.
    func keep(_ note: NoteRecord, of account: Account, readAfter mark: Mark) {
        guard !note.deleted else { return }
        let cost = Self.cost(of: note)
        guard cost <= maxEntryBytes else { return }
        state.withLock { state in
            guard state.hearing, (state.forgotten[account.userID] ?? state.floor) <= mark.value else { return }
            store(Kept(note: note, answer: nil), for: Key(account: account, id: note.id), cost: cost, in: &state)
        }
    }

    /// Encodes the answer of `note`, just found kept for `account`, and keeps it with the note
    /// if the same revision is still kept without one (a change forgotten meanwhile, or a newer
    /// revision kept since, leaves the entry as it is).
    /// - Returns: the answer, for this read, whether kept or not.
    func attachAnswer(to note: NoteRecord, of account: Account) -> Answer {
        let answer = Answer(note)
        let key = Key(account: account, id: note.id)
        let cost = Self.cost(of: note) + answer.json.count
        state.withLock { state in
            guard state.hearing, let kept = state.entries.value(for: key), kept.answer == nil, kept.note.rev == note.rev else { return }
            store(Kept(note: kept.note, answer: answer), for: key, cost: cost, in: &state)
        }
        return answer
    }

    private func store(_ kept: Kept, for key: Key, cost: Int, in state: inout State) {
        for dropped in state.entries.insert(kept, for: key, cost: cost) {
            state.keysByUser[dropped.account.userID]?.remove(dropped)
            if state.keysByUser[dropped.account.userID]?.isEmpty == true { state.keysByUser[dropped.account.userID] = nil }
        }
        state.keysByUser[key.account.userID, default: []].insert(key)
    }

    /// Forgets `userID`'s notes: one of them changed (committed here, or heard from another
    /// server). Reads that began before this keep nothing.
    func forget(user userID: Int64) {
        state.withLock { state in
            state.clock += 1
            if state.forgotten.count >= Self.maxForgotten {
                state.forgotten = [:]
                state.floor = state.clock
            }
            state.forgotten[userID] = state.clock
            for key in state.keysByUser.removeValue(forKey: userID) ?? [] {
                state.entries.removeValue(for: key)
            }
        }
    }

    /// Forgets everything and keeps nothing until `resume()`: changes may go unheard from now on.
    func suspend() {
        forgetAll(hearing: false)
    }

    /// Changes are heard again from now on: forgets everything once more (whatever was read
    /// while they went unheard may be stale) and starts keeping.
    func resume() {
        forgetAll(hearing: true)
    }

    /// Whether notes are being kept (false while suspended).
    var isHearing: Bool { state.withLock { $0.hearing } }

    /// How many notes are kept, and what they cost together (tests and the documentation's bound).
    var usage: (notes: Int, bytes: Int) {
        state.withLock { ($0.entries.count, $0.entries.cost) }
    }

    private func forgetAll(hearing: Bool) {
        state.withLock { state in
            state.clock += 1
            state.floor = state.clock
            state.forgotten = [:]
            state.entries.removeAll()
            state.keysByUser = [:]
            state.hearing = hearing
        }
    }

    /// What keeping `note` costs: its strings' bytes and a fixed overhead.
    private static func cost(of note: NoteRecord) -> Int {
        (note.content?.utf8.count ?? 0) + note.path.utf8.count + note.hash.utf8.count + (note.mediaType?.utf8.count ?? 0)
            + note.id.value.utf8.count + entryOverhead
    }
}
