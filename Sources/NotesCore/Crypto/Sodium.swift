import CSodium

/// The single place libsodium is initialised, for NotesCore's wrappers (secure random, password
/// hashing, secret boxes, constant-time comparison), which call `Sodium.requireReady()` before
/// their first libsodium call.
enum Sodium {
    /// `sodium_init()` is idempotent (0 the first time, 1 after) and thread-safe; a negative
    /// result means no secure random source exists, which no caller can work around.
    static let ready: Bool = sodium_init() >= 0

    /// Stops the process when libsodium has no secure random source: nothing secret may be made without one.
    static func requireReady() {
        precondition(ready, "libsodium could not initialise (no secure random source)")
    }
}
