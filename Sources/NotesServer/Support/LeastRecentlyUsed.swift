/// A map that holds at most `budget` in total cost, dropping its least recently used entries to
/// make room for a new one: the storage of `NoteCache`.
///
/// A value type without locking; its owner keeps it behind a `Mutex`. Entries live in one array
/// of slots linked newest to oldest by index (freed slots are reused), so a hit moves an entry to
/// the front with a few integer writes and no allocation.
struct LeastRecentlyUsed<Key: Hashable, Value> {
    private struct Slot {
        var key: Key
        var value: Value
        var cost: Int
        /// The slot used just after this one (towards `newest`), or -1.
        var newer: Int
        /// The slot used just before this one (towards `oldest`), or -1.
        var older: Int
    }

    /// The most the entries may cost together.
    let budget: Int
    /// What the entries cost together now (at most `budget`).
    private(set) var cost = 0
    private var index: [Key: Int] = [:]
    private var slots: [Slot?] = []
    private var free: [Int] = []
    private var newest = -1
    private var oldest = -1

    init(budget: Int) {
        precondition(budget >= 0, "a negative budget")
        self.budget = budget
    }

    /// How many entries there are.
    var count: Int { index.count }

    /// The value for `key`, which becomes the most recently used; `nil` when absent.
    mutating func value(for key: Key) -> Value? {
        guard let position = index[key], let slot = slots[position] else { return nil }
        moveToFront(position)
        return slot.value
    }

    /// Stores `value` for `key` as the most recently used entry, replacing any value it had, and
    /// drops the least recently used entries until the total fits `budget`.
    /// An entry costing more than the whole budget is not stored (and `key` is then absent).
    /// - Returns: the keys dropped to make room, so an owner's other indexes can follow.
    @discardableResult
    mutating func insert(_ value: Value, for key: Key, cost: Int) -> [Key] {
        removeValue(for: key)
        guard cost <= budget else { return [] }
        var dropped: [Key] = []
        while self.cost + cost > budget, oldest >= 0, let victim = slots[oldest]?.key {
            removeValue(for: victim)
            dropped.append(victim)
        }
        let slot = Slot(key: key, value: value, cost: cost, newer: -1, older: newest)
        let position: Int
        if let reused = free.popLast() {
            position = reused
            slots[position] = slot
        } else {
            position = slots.count
            slots.append(slot)
        }
        if newest >= 0 { slots[newest]?.newer = position }
        newest = position
        if oldest < 0 { oldest = position }
        index[key] = position
        self.cost += cost
        return dropped
    }

    /// Removes the entry for `key`, if there is one.
    mutating func removeValue(for key: Key) {
        guard let position = index.removeValue(forKey: key), let slot = slots[position] else { return }
        unlink(slot, at: position)
        slots[position] = nil
        free.append(position)
        cost -= slot.cost
    }

    /// Removes every entry and gives their memory back.
    mutating func removeAll() {
        index = [:]
        slots = []
        free = []
        newest = -1
        oldest = -1
        cost = 0
    }

    private mutating func moveToFront(_ position: Int) {
        guard position != newest, let slot = slots[position] else { return }
        unlink(slot, at: position)
        slots[position]?.older = newest
        slots[position]?.newer = -1
        if newest >= 0 { slots[newest]?.newer = position }
        newest = position
        if oldest < 0 { oldest = position }
    }

    /// Takes the slot at `position` (whose links are `slot`'s) out of the newest-to-oldest chain.
    private mutating func unlink(_ slot: Slot, at position: Int) {
        if slot.newer >= 0 { slots[slot.newer]?.older = slot.older } else { newest = slot.older }
        if slot.older >= 0 { slots[slot.older]?.newer = slot.newer } else { oldest = slot.newer }
    }
}
