#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finding a run of bytes in UTF-8 text, byte for byte: `memchr` finds each candidate first
/// byte and `memcmp` checks the rest (glibc's `memmem` is not imported into Swift). Foundation's
/// `String.range(of:)` compares by Unicode rules through `NSString` and cost more than
/// rendering the page it searched.
enum ByteSearch {
    /// Where `needle` first starts in `haystack` at or after `start`, or nil.
    static func firstOffset(of needle: StaticString, in haystack: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int? {
        guard let base = haystack.baseAddress, needle.utf8CodeUnitCount > 0 else { return nil }
        let first = Int32(needle.utf8Start[0])
        var offset = start
        while offset < haystack.count, let found = memchr(base + offset, first, haystack.count - offset) {
            let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            guard index + needle.utf8CodeUnitCount <= haystack.count else { return nil }
            if memcmp(base + index, needle.utf8Start, needle.utf8CodeUnitCount) == 0 { return index }
            offset = index + 1
        }
        return nil
    }

    /// Whether `haystack` holds `needle` starting exactly at `offset`.
    static func holds(_ needle: StaticString, in haystack: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        guard let base = haystack.baseAddress, offset >= 0, offset + needle.utf8CodeUnitCount <= haystack.count else { return false }
        return memcmp(base + offset, needle.utf8Start, needle.utf8CodeUnitCount) == 0
    }
}
