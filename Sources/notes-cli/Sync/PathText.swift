import NotesCore

/// `NotePath.nfc` with a quicker test for the common case, an ASCII name (NFC already).
///
/// A no-op sync of 10,000 notes normalises each path about three times (the walk's name, the
/// index's row, the folder state's key); `NotePath.isASCII` tests a byte at a time through the
/// generic `allSatisfy`, about 30 instructions a byte, which was a tenth of the whole sync's
/// user-space instructions. This one ORs the bytes of the contiguous UTF-8 (which the compiler
/// vectorises) and answers the same.
enum PathText {
    /// `path` in Unicode NFC, as `NotePath.nfc(_:)` gives it.
    static func nfc(_ path: String) -> String {
        isASCII(path) ? path : NotePath.nfc(path)
    }

    /// Whether every byte of `text` is ASCII.
    static func isASCII(_ text: String) -> Bool {
        let contiguous = text.utf8.withContiguousStorageIfAvailable { bytes in
            var any: UInt8 = 0
            for byte in bytes { any |= byte }
            return any < 0x80
        }
        return contiguous ?? text.utf8.allSatisfy { $0 < 0x80 }
    }
}
