/// Writing to stdout failed (a closed pipe, a full disk), with the system's `errno`.
struct OutputError: Error, Sendable, CustomStringConvertible {
    var errno: Int32

    /// The user's sentence, as `CLI.outcome(of:)` words it.
    var description: String { CLI.sentence(of: self) }
}
