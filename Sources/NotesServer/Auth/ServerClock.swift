import NotesCore

/// The server's wall clock in Unix milliseconds. Used for token lifetimes and timestamps shown
/// to people; sync never depends on it (revisions order changes).
struct ServerClock: Sendable {
    func now() -> Int64 { WireTime.nowMilliseconds() }
}
