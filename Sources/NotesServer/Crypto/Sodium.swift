import CSodium

/// The single place the server initialises libsodium; every wrapper here (and password
/// hashing) touches `Sodium.requireReady()` first. NotesCore initialises its own for secure random.
enum Sodium {
    /// `sodium_init()` is idempotent (0 the first time, 1 after) and thread-safe; a negative
    /// result means no secure random source exists, which no caller can work around.
    static let ready: Bool = sodium_init() >= 0

    static func requireReady() {
        precondition(ready, "libsodium could not initialise (no secure random source)")
    }
}
