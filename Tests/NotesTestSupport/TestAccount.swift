/// The account every fixture signs in with, so no test depends on which fixture made its user.
public enum TestAccount {
    public static let username = "ada"
    /// Long enough for the server's password rule; tests never print it.
    public static let password = "correct horse battery staple"
}
