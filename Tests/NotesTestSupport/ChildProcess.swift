import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real program started for a test with `posix_spawn`, not Foundation's `Process`.
///
/// Why not `Process`: on Linux with Swift 6.3.1, `Process.run()` sometimes crashes in the parent
/// (a buffer over-read while it lists `/proc/self/fd`, swift-corelibs-foundation PR #5472), about
/// once in a few runs of a suite that starts hundreds of servers and clients. Spawning directly
/// also lets the child start clean: every descriptor above stderr closed (a pipe of another
/// test's child never leaks into this one and holds its end-of-file back), and the signals the
/// test process ignores (SIGPIPE) back to their defaults.
public final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe the test reads (stdout, stderr) or writes (stdin).
        case pipe
        /// stderr only: the same pipe as stdout, so both arrive interleaved in one stream.
        case sameAsStandardOutput
    }

    /// How a child ended.
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    public let processIdentifier: pid_t
    /// The write end of the child's stdin, when it is `.pipe`.
    public let standardInput: FileHandle?
    /// The read end of the child's stdout, when it is `.pipe`.
    public let standardOutput: FileHandle?
    /// The read end of the child's stderr, when it is `.pipe`.
    public let standardError: FileHandle?
    private let exit: ProcessExit

    /// Starts `executable` with exactly `environment` (nothing is inherited).
    public init(_ executable: URL, _ arguments: [String], environment: [String: String],
                currentDirectory: URL? = nil,
                stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null) throws {
        BrokenPipes.ignore()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        var failed = true
        defer { if failed { parentEnds.forEach { close($0) } } }

        /// Connects the child's `target` descriptor to `stream`; returns the parent's end of a pipe.
        func connect(_ stream: Stream, to target: Int32, childReads: Bool) throws -> Int32? {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", childReads ? O_RDONLY : O_WRONLY, 0)
                return nil
            case .sameAsStandardOutput:
                posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, target)
                return nil
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw ChildProcessError.pipe(errno) }
                // Close-on-exec for programs started another way; children spawned here close
                // every inherited descriptor anyway (closefrom below), whatever the timing.
                ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
                let (childEnd, parentEnd) = childReads ? (ends[0], ends[1]) : (ends[1], ends[0])
                childEnds.append(childEnd)
                parentEnds.append(parentEnd)
                // dup2 onto 0/1/2 clears close-on-exec on the child's copy only.
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
                return parentEnd
            }
        }
        let input = try connect(stdin, to: STDIN_FILENO, childReads: true)
        let output = try connect(stdout, to: STDOUT_FILENO, childReads: false)
        let errors = try connect(stderr, to: STDERR_FILENO, childReads: false)
        GNUSpawnActions.closeFrom(&actions, 3)
        if let currentDirectory {
            guard GNUSpawnActions.changeDirectory(&actions, currentDirectory.path) == 0 else {
                throw ChildProcessError.spawn(currentDirectory.path, ENOSYS)
            }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var noMask = sigset_t()
        sigemptyset(&noMask)
        posix_spawnattr_setsigmask(&attributes, &noMask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw ChildProcessError.spawn(executable.path, result) }
        failed = false
        processIdentifier = pid
        standardInput = input.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        standardOutput = output.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        standardError = errors.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        exit = ProcessExit(pid: pid)
    }

    /// Whether the child has exited (and was reaped: its pid may be someone else's now).
    public var hasExited: Bool { exit.hasExited }

    /// How the child ended, once it has.
    public var termination: Termination? { exit.termination }

    /// Sends `signal` unless the child has already been reaped.
    public func send(_ signal: Int32) {
        if !exit.hasExited { kill(processIdentifier, signal) }
    }

    /// SIGTERM.
    public func terminate() { send(SIGTERM) }

    /// The exit status (or the number of the signal that ended it), once the child has exited.
    @discardableResult
    public func wait() async -> Int32 { await exit.wait() }

    /// `wait()` for synchronous code: blocks the calling thread until the child has exited.
    public func waitUntilExit() -> Int32 { exit.waitBlocking() }

    /// The exit status, or `nil` if the child is still running after `timeout`.
    public func wait(timeout: Duration) async -> Int32? { await exit.wait(timeout: timeout) }
}

public enum ChildProcessError: Error, CustomStringConvertible {
    case pipe(Int32)
    case spawn(String, Int32)

    public var description: String {
        switch self {
        case .pipe(let code): "could not make a pipe: \(String(cString: strerror(code)))"
        case .spawn(let path, let code): "could not start \(path): \(String(cString: strerror(code)))"
        }
    }
}

/// glibc's `posix_spawn` file actions that Swift's Glibc module does not import (they need
/// `_GNU_SOURCE`): looked up once by name. Both exist in glibc since 2.34 (Debian 12 has 2.36).
private enum GNUSpawnActions {
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>,
                                                        UnsafePointer<CChar>) -> Int32

    private static let closeFromFunction: CloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    private static let changeDirectoryFunction: ChangeDirectory? = symbol("posix_spawn_file_actions_addchdir_np")

    /// The child closes every descriptor from `lowest` up; a no-op where glibc lacks it.
    static func closeFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) {
        _ = closeFromFunction?(actions, lowest)
    }

    /// The child changes to `path` before it runs the program; ENOSYS where glibc lacks it.
    static func changeDirectory(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: String) -> Int32 {
        guard let changeDirectoryFunction else { return ENOSYS }
        return changeDirectoryFunction(actions, path)
    }

    private static func symbol<T>(_ name: String) -> T? {
        // A null handle is RTLD_DEFAULT: every object already loaded, libc included.
        dlsym(nil, name).map { unsafeBitCast($0, to: T.self) }
    }
}
