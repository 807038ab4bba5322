import NotesCommandLine

/// `user unlock NAME`: ends a sign-in lockout at once, on a running server too.
extension UserCommand {
    struct Unlock: NamedAccountCommand {
        static let spec = CommandSpec(
            "unlock", abstract: "Let a user throttled for failed sign-ins try again now",
            discussion: """
                Forgets the failed sign-in attempts counted on NAME so far, from every address, so its
                owner may sign in at once instead of waiting out the window (--login-window, 15 minutes
                by default). Works beside running servers, which read it at the account's next attempt,
                whether they keep their counts in memory (SQLite) or share them in PostgreSQL. The
                limit per address over all accounts (--login-attempts-per-address) stays.
                """,
            positionals: [nameArgument])

        let account: NamedAccount

        func run() throws {
            let (users, user) = try account.existing()
            try LoginThrottle.unlock(username: user.username, in: users.database, now: users.clock.now())
            printLine("Unlocked \(user.username): failed sign-ins counted so far are forgotten.")
        }
    }
}
