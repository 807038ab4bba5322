import Foundation

/// The test process outlives the programs and peers it talks to: a child that exits before
/// reading its stdin, a server that closes a connection mid-request. Writing to either raises
/// SIGPIPE, whose default action killed the whole test run (signal 13) instead of failing one
/// write. Ignored once, for the process, by everything that writes to a pipe or socket, so a
/// write gets EPIPE and the test sees the outcome it is about.
public enum BrokenPipes {
    /// Call before writing to a child's pipe or a socket; costs nothing after the first call.
    public static func ignore() {
        _ = ignored
    }

    private static let ignored: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()
}
