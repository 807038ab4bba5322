/// Why no credential of the account a command needs is at hand, so the user has to sign in
/// (docs/architecture.md §4.2: a bound folder uses its own account's session, never another's).
enum AccountError: Error, Sendable, CustomStringConvertible {
    /// No server is named and none is signed in to.
    case notSignedIn
    /// Nobody (`username`, when one was named) is signed in to `server`.
    case notSignedInTo(server: ServerURL, username: String?)
    /// The folder's account has no session here; `signedIn` are the accounts that do.
    case folderAccountNotSignedIn(folder: String, account: String, server: ServerURL, signedIn: [String])
    /// `NOTES_TOKEN` belongs to `owner`, not to the account the folder is bound to.
    case foreignToken(owner: String, folder: String, account: String, server: String)
    /// A folder bound before accounts were recorded whose notes belong to none of the accounts
    /// signed in to `server` (`signedIn`, the default one first).
    case folderOwnerNotSignedIn(folder: String, server: ServerURL, signedIn: [String])
    /// The stored session does not say whose it is, even after asking the server.
    case sessionUnidentified
    /// A binding (`notes init`, `notes clone`) records the account signed in, and `cause` says
    /// why there is none.
    case signInBeforeBinding(cause: any Error)

    /// The user's sentence, as `CLI.outcome(of:)` words it (so an error interpolated into a
    /// message reads the same as one reported at exit).
    var description: String { CLI.sentence(of: self) }
}
