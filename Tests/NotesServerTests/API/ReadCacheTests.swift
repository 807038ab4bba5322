import Foundation
import NotesCore
import Synchronization
import Testing
@testable import NotesServer

/// The bounds and the race rules of the caches behind `GET /v1/notes/{id}`, on the real types
/// (the live tests show the server using them; these show the rules that make that safe).
@Suite("Read caches: bounds, marks and suspension")
struct ReadCacheTests {
    static let alice = NoteCache.Account(userID: 1, createdAt: 100)

    static func note(_ content: String, id: NoteID = NoteID(), deleted: Bool = false) -> NoteRecord {
        NoteRecord(id: id, path: "a.md", content: content, hash: SHA256.hex(of: content), size: content.utf8.count, rev: 1,
                   createdAt: 0, updatedAt: 0, deleted: deleted)
    }

    @Test("the least recently used entries go first, and the total never passes the budget")
    func leastRecentlyUsedKeepsItsBudget() {
        var entries = LeastRecentlyUsed<String, Int>(budget: 30)
        entries.insert(1, for: "a", cost: 10)
        entries.insert(2, for: "b", cost: 10)
        entries.insert(3, for: "c", cost: 10)
        #expect(entries.value(for: "a") == 1, "a is now the most recently used")
        #expect(entries.insert(4, for: "d", cost: 10) == ["b"])
        #expect(entries.value(for: "b") == nil && entries.value(for: "c") == 3 && entries.value(for: "d") == 4)
        #expect(entries.insert(5, for: "e", cost: 25) == ["a", "c", "d"])
        #expect(entries.cost == 25 && entries.count == 1)
        #expect(entries.insert(6, for: "f", cost: 31).isEmpty && entries.value(for: "f") == nil, "larger than the budget: not kept")
        entries.removeValue(for: "e")
        #expect(entries.cost == 0 && entries.count == 0)
        for round in 0..<100 { entries.insert(round, for: "k\(round % 7)", cost: 4) }
        #expect(entries.cost <= 30 && entries.count == 7)
    }

    @Test("a note cache holds at most its budget, and never a tombstone or a note larger than its entry bound")
    func noteCacheBounds() {
        let cache = NoteCache(budgetBytes: 64 << 10, maxEntryBytes: 8 << 10)
        for _ in 0..<100 {
            let note = Self.note(String(repeating: "x", count: 2000))
            cache.keep(note, of: Self.alice, readAfter: cache.mark())
        }
        #expect(cache.usage.bytes <= 64 << 10 && cache.usage.notes > 20)
        let large = Self.note(String(repeating: "y", count: 9000))
        cache.keep(large, of: Self.alice, readAfter: cache.mark())
        #expect(cache.note(large.id, of: Self.alice) == nil)
        let tombstone = Self.note("", deleted: true)
        cache.keep(tombstone, of: Self.alice, readAfter: cache.mark())
        #expect(cache.note(tombstone.id, of: Self.alice) == nil)
    }

    @Test("an encoded answer is kept only with the revision it was encoded from, counts against the budget, and goes when its note is forgotten")
    func noteCacheAnswers() {
        let cache = NoteCache()
        let note = Self.note("first")
        cache.keep(note, of: Self.alice, readAfter: cache.mark())
        #expect(cache.kept(note.id, of: Self.alice)?.answer == nil, "a note read once costs its record alone")
        let before = cache.usage.bytes
        let answer = cache.attachAnswer(to: note, of: Self.alice)
        #expect(answer.json == note.resource.wireJSON() && answer.etag == "\"1\"")
        #expect(cache.kept(note.id, of: Self.alice)?.answer?.json == answer.json)
        #expect(cache.usage.bytes == before + answer.json.count)
        #expect(cache.kept(note.id, of: NoteCache.Account(userID: 2, createdAt: 100)) == nil)

        cache.forget(user: Self.alice.userID)
        _ = cache.attachAnswer(to: note, of: Self.alice)
        #expect(cache.kept(note.id, of: Self.alice) == nil && cache.usage.bytes == 0, "a forgotten note is not brought back by its answer")

        let newer = NoteRecord(id: note.id, path: "a.md", content: "second", hash: SHA256.hex(of: "second"), size: 6, rev: 2,
                               createdAt: 0, updatedAt: 0, deleted: false)
        cache.keep(newer, of: Self.alice, readAfter: cache.mark())
        _ = cache.attachAnswer(to: note, of: Self.alice)
        #expect(cache.kept(note.id, of: Self.alice)?.answer == nil, "an older revision's answer is not kept with a newer one")
        #expect(cache.attachAnswer(to: newer, of: Self.alice).json == newer.resource.wireJSON())
        #expect(cache.kept(note.id, of: Self.alice)?.answer?.rev == 2)
    }

    @Test("a kept note is found only by its account: another user id, or the same id of an account made later, finds nothing")
    func noteCacheKeysByAccount() {
        let cache = NoteCache()
        let note = Self.note("alice's")
        cache.keep(note, of: Self.alice, readAfter: cache.mark())
        #expect(cache.note(note.id, of: Self.alice)?.content == "alice's")
        #expect(cache.note(note.id, of: NoteCache.Account(userID: 2, createdAt: 100)) == nil)
        #expect(cache.note(note.id, of: NoteCache.Account(userID: 1, createdAt: 200)) == nil)
    }

    @Test("a read that began before its user's notes were forgotten keeps nothing; another user's forgetting does not matter")
    func noteCacheRefusesReadsThatRacedAChange() {
        let cache = NoteCache()
        let before = cache.mark()
        cache.forget(user: Self.alice.userID)
        let stale = Self.note("old")
        cache.keep(stale, of: Self.alice, readAfter: before)
        #expect(cache.note(stale.id, of: Self.alice) == nil)

        let mark = cache.mark()
        cache.forget(user: 99)
        let fresh = Self.note("new")
        cache.keep(fresh, of: Self.alice, readAfter: mark)
        #expect(cache.note(fresh.id, of: Self.alice)?.content == "new")
        cache.forget(user: Self.alice.userID)
        #expect(cache.note(fresh.id, of: Self.alice) == nil)
    }

    @Test("a suspended note cache serves and keeps nothing; after resuming, reads from before it are still refused")
    func noteCacheSuspension() {
        let cache = NoteCache()
        let note = Self.note("text")
        cache.keep(note, of: Self.alice, readAfter: cache.mark())
        cache.suspend()
        #expect(cache.note(note.id, of: Self.alice) == nil)
        let duringOutage = cache.mark()
        cache.keep(note, of: Self.alice, readAfter: duringOutage)
        #expect(cache.usage.notes == 0)
        cache.resume()
        cache.keep(note, of: Self.alice, readAfter: duringOutage)
        #expect(cache.note(note.id, of: Self.alice) == nil, "read while changes went unheard")
        cache.keep(note, of: Self.alice, readAfter: cache.mark())
        #expect(cache.note(note.id, of: Self.alice)?.content == "text")
    }

    @Test("a kept token row serves for less than a second, a forgetting refuses rows read before it, and the count stays bounded")
    func tokenChecksExpireAndForget() {
        let start = ContinuousClock.now
        let offset = Mutex(Duration.zero)
        let cache = TokenCheckCache(capacity: 8, now: { start + offset.withLock { $0 } })
        let token = Self.token(hash: Array(repeating: 1, count: 32))
        cache.keep(token, readAfter: cache.mark())
        offset.withLock { $0 = .milliseconds(999) }
        #expect(cache.token(digest: token.hash)?.id == token.id)
        offset.withLock { $0 = .seconds(1) }
        #expect(cache.token(digest: token.hash) == nil, "a second old: read again")

        let before = cache.mark()
        cache.forgetAll()
        cache.keep(token, readAfter: before)
        #expect(cache.token(digest: token.hash) == nil, "read before a revocation committed here")

        for byte in 0..<20 { cache.keep(Self.token(hash: Array(repeating: UInt8(byte), count: 32)), readAfter: cache.mark()) }
        #expect(cache.count <= 8)
    }

    static func token(hash: [UInt8]) -> BearerTokenRecord {
        BearerTokenRecord(hash: hash, id: "t\(hash[0])", scope: .read, expiresAt: nil, revoked: false, sessionID: nil, sessionRevoked: false,
                          userID: 1, username: "alice", userDisabled: false, userCreatedAt: 100, tokenUsedAt: nil, sessionUsedAt: nil,
                          sessionDevice: nil, name: "script")
    }
}
