/// A stored property of a wire type, reached by its offset in the value's memory.
///
/// Made from a key path once, when a `WireShape` is built. Applying the key path on every read
/// and write looked up generic metadata each time, and handing each field's writer the value
/// copied it whole, which together made writing a page of changes half again as costly as
/// writing its members directly. A stored property's offset is fixed and its memory is bound
/// to its type, so reaching it there through a pointer to the value is what its getter does.
struct WireStoredMember<Object, Value>: @unchecked Sendable {
    // @unchecked: it holds only an offset; `Object` and `Value` are the types it reads as.
    /// Where the member starts in the value's memory.
    let offset: Int

    /// The member `path` names; a key path to anything but a stored property is a
    /// programmer's error in a wire description.
    init(_ path: WritableKeyPath<Object, Value>) {
        guard let offset = MemoryLayout<Object>.offset(of: path) else {
            preconditionFailure("a wire field must name a stored property: \(path)")
        }
        self.offset = offset
    }

    /// The member of the `Object` at `object`.
    func pointer(in object: UnsafeRawPointer) -> UnsafePointer<Value> {
        (object + offset).assumingMemoryBound(to: Value.self)
    }

    /// The member of the `Object` at `object`, to assign.
    func pointer(in object: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Value> {
        (object + offset).assumingMemoryBound(to: Value.self)
    }
}
