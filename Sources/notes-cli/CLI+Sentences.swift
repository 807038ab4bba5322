#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The sentences of the client layer's own errors and of stdout's, for `CLI.outcome(of:)`: what
/// went wrong, in the words of the file, account or sign-in it concerns, and what the user can do.
extension CLI {
    /// What the user has to do to get the account's credential at hand.
    static func sentence(of error: AccountError) -> String {
        switch error {
        case .notSignedIn:
            return "not signed in: run `notes login --server URL`"
        case .notSignedInTo(let server, let username?):
            return "not signed in to \(server) as \(username): run `notes login --server \(server) --username \(username)`"
        case .notSignedInTo(let server, nil):
            return "not signed in to \(server): run `notes login --server \(server)`"
        case .folderAccountNotSignedIn(let folder, let account, let server, let signedIn):
            let who = signedIn.isEmpty ? "nobody is signed in there"
                : "only \(signedIn.joined(separator: ", ")) \(signedIn.count == 1 ? "is" : "are") signed in there"
            return "\(folder) belongs to \(account) on \(server), but \(who); nothing was changed. "
                + "Run `notes login --server \(server) --username \(account)`"
        case .foreignToken(let owner, let folder, let account, let server):
            return "NOTES_TOKEN belongs to \(owner), but \(folder) belongs to \(account) on \(server); nothing was changed. "
                + "Unset NOTES_TOKEN, or set it to a token of \(account)'s"
        case .folderOwnerNotSignedIn(let folder, let server, let signedIn):
            return """
                \(folder) was bound before notes recorded accounts, and the notes it synced belong to none of the \
                accounts signed in to \(server) (\(signedIn.joined(separator: ", "))); nothing was changed. Sign in as the \
                account that synced it (`notes login --server \(server) --username NAME`), or make it \
                \(signedIn.first ?? "")'s with `notes init --rebind \(folder)` (its files stay and are uploaded at the next sync)
                """
        case .sessionUnidentified:
            return "the stored session does not say whose it is: run `notes login`"
        case .signInBeforeBinding(let cause):
            return "\(outcome(of: cause).sentence) first: a folder is bound to the account you sign in as"
        }
    }

    /// Why signing in stored no session.
    static func sentence(of error: SignInError) -> String {
        switch error {
        case .wrongPassword(let server):
            "wrong username or password for \(server)"
        case .tooManyAttempts(let server, let retryAfter):
            "too many sign-in attempts on \(server): try again" + (retryAfter.map { " in \(Int($0.rounded(.up))) s" } ?? " later")
        case .noRefreshToken(let server):
            "\(server) signed in without a refresh token, so the session could not be kept"
        case .noLoopbackPort(listening: false):
            "could not open a loopback port for the browser to return to"
        case .noLoopbackPort(listening: true):
            "could not listen on a loopback port for the browser to return to"
        case .browserTimedOut(let minutes):
            "no answer from the browser within \(minutes) minutes; run `notes login --web` again"
        case .startURLNotBuilt(let server):
            "could not build the sign-in URL for \(server)"
        case .foreignState:
            "the browser came back with a state this command did not send; nothing was changed"
        case .providerFailed(let provider, let reason):
            "sign-in with \(provider) failed: \(reason)"
        case .noCode:
            "the browser came back without a sign-in code"
        case .codeRefused(let server, let refusal):
            "\(server) refused the sign-in code: \(refusal.message)"
        case .noProvider(let server):
            "\(server) has no identity provider to sign in with; sign in with a password"
        case .unknownProvider(let server, let requested, let available):
            "\(server) has no provider '\(requested)'; it has: \(available)"
        case .stopped:
            "sign-in stopped before it was approved; nothing was stored"
        case .codeExpired:
            "the code expired before it was approved; run `notes login --device` again"
        case .denied:
            "the sign-in was denied in the browser; nothing was stored"
        case .deviceRefused(let server, let refusal):
            "\(server) refused the device sign-in: \(refusal.message)"
        }
    }

    /// What went wrong with the credentials file, its folder or its lock, and the system's reason.
    static func sentence(of error: CredentialsError) -> String {
        switch error {
        case .noLocation:
            "cannot find where to keep credentials: set HOME or XDG_CONFIG_HOME"
        case .unreadable(let path, let cause):
            "cannot read \(path): \(cause.localizedDescription)"
        case .newerFormat(let path, let version):
            "\(path) was written by a newer notes (format \(version)); update notes to use it"
        case .damaged(let path, _):
            "\(path) is damaged; remove it and run `notes login` again"
        case .directoryNotCreated(let path, let cause):
            "cannot create \(path): \(cause.localizedDescription)"
        case .directoryNotPrivate(let path, let errno):
            "\(path) is readable by others and cannot be made private: \(systemReason(errno))"
        case .notEncoded(let cause):
            "cannot encode credentials: \(cause)"
        case .temporaryFileNotCreated(let path, let errno):
            "cannot create \(path): \(systemReason(errno))"
        case .notWritten(let path, let errno):
            "cannot write \(path): \(systemReason(errno))"
        case .lockNotOpened(let path, let errno):
            "cannot open the credentials lock \(path): \(systemReason(errno))"
        case .lockFailed(let path, let errno):
            "cannot lock \(path): \(systemReason(errno))"
        case .lockTimedOut(let path, let seconds):
            "another notes process has held \(path) for \(seconds) s; try again"
        }
    }

    /// Why stdout took no more output.
    static func sentence(of error: OutputError) -> String {
        "cannot write to stdout: \(systemReason(error.errno))"
    }

    private static func systemReason(_ errno: Int32) -> String {
        String(cString: strerror(errno))
    }
}
