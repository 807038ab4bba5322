import Foundation

/// Polls `condition` every `interval` until it holds or `timeout` seconds pass; whether it held.
///
/// Tests wait for a condition rather than for a fixed time or a `Task.yield()` spin: a loaded
/// machine only makes them slower, never wrong, and a condition that never comes fails the test
/// after the deadline instead of hanging it.
public func waitUntil(timeout: Double = 10, every interval: Duration = .milliseconds(20),
                      _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: interval)
    }
    return try await condition()
}
