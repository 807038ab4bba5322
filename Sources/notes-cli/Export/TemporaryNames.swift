import Foundation

/// Names for the temporary files an export writes before renaming them over its pages:
/// `.notes-export-<UUID>-<n>.tmp`, one UUID per export and a counter after it.
///
/// A new UUID for each of 10,000 pages cost more than writing many of them; one per export is as
/// unlikely to meet another program's file, and `open(O_EXCL)` refuses the rare clash anyway.
struct TemporaryNames {
    private let prefix = ".notes-export-" + UUID().uuidString + "-"
    private var count = 0

    /// The next name, never given before by this value.
    mutating func next() -> String {
        count += 1
        return prefix + String(count) + ".tmp"
    }
}
