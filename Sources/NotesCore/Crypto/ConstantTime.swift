import CSodium

/// Comparisons whose duration does not depend on where two secrets differ.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes; compares every byte when the lengths match.
    /// Callers compare fixed-length digests, so the early exit on length leaks nothing secret.
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        Sodium.requireReady()
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in
                sodium_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
            }
        }
    }

    /// Whether two strings hold the same UTF-8 bytes, in constant time for equal lengths.
    public static func equal(_ a: String, _ b: String) -> Bool {
        equal(Array(a.utf8), Array(b.utf8))
    }
}
