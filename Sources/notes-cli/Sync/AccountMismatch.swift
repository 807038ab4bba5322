/// The server answered a bound folder with another account's notes (docs/architecture.md, Sync
/// invariants 12): nothing was changed. `CLI.outcome(of:)` turns it into exit 4 (sign in as the
/// folder's account) and its description.
struct AccountMismatch: Error, CustomStringConvertible {
    /// Whose notes the server sent.
    var answeredFor: String
    /// The folder, and the account and server it is bound to.
    var folder: String
    var boundAccount: String
    var server: String

    var description: String {
        "the server answered with the notes of \(answeredFor), but \(folder) belongs to \(boundAccount) on \(server); "
            + "nothing was changed. Run `notes login --server \(server) --username \(boundAccount)`"
    }
}
