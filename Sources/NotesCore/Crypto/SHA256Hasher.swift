import CCrypto

/// SHA-256 over bytes that arrive in pieces (a file read in blocks, an upload chunk received
/// from the network), so large content is hashed without ever being held whole in memory.
public struct SHA256Hasher: Sendable {
    private var state = SHA256_CTX()

    public init() {
        notes_sha256_init(&state)
    }

    /// Adds the next piece.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        notes_sha256_update(&state, base, bytes.count)
    }

    /// Adds the next piece.
    public mutating func update<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// The 32-byte digest of everything added so far (the hasher can go on taking pieces).
    public func finalize() -> [UInt8] {
        var copy = state
        var out = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        out.withUnsafeMutableBufferPointer { notes_sha256_final(&copy, $0.baseAddress) }
        return out
    }
}
