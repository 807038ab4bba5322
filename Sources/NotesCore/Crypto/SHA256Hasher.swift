import CSodium

/// SHA-256 over bytes that arrive in pieces (a file read in blocks, an upload chunk received
/// from the network), so large content is hashed without ever being held whole in memory.
public struct SHA256Hasher: Sendable {
    private var state = crypto_hash_sha256_state()

    public init() {
        Sodium.requireReady()
        _ = crypto_hash_sha256_init(&state)
    }

    /// Adds the next piece.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = crypto_hash_sha256_update(&state, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    /// Adds the next piece.
    public mutating func update<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// The 32-byte digest of everything added so far (the hasher can go on taking pieces).
    public func finalize() -> [UInt8] {
        var copy = state
        var out = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        out.withUnsafeMutableBufferPointer { _ = crypto_hash_sha256_final(&copy, $0.baseAddress!) }
        return out
    }
}
