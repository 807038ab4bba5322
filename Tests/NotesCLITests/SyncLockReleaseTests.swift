import Foundation
import NotesTestSupport
import Testing
@testable import notes_cli

#if canImport(Glibc)
import Glibc
#endif

/// The folder lock is released when its holder is done, even when a child process forked
/// meanwhile still holds a copy of the lock's descriptor. A test process forks `notes` children
/// all the time, and a `flock` follows the open file, not the process: released only by closing,
/// the lock stayed held by any child between its fork and its exec, and a `notes sync` started
/// right after an in-process sync could be told "another sync is running".
@Suite("Sync lock release")
struct SyncLockReleaseTests {
    @Test("a released folder lock is free at once although a child still holds a copy of its descriptor")
    func releasedLockIsFreeDespiteAnInheritedDescriptor() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            let lockPath = h.folder("a") + "/.notes/lock"
            let child: pid_t
            do {
                let lock = try SyncLock(path: lockPath)
                let descriptor = try #require(Self.openDescriptor(of: lockPath), "the lock's descriptor is not in /proc/self/fd")
                child = try Self.spawnHolding(descriptor)
                withExtendedLifetime(lock) {}
            }
            defer {
                kill(child, SIGKILL)
                var status: Int32 = 0
                waitpid(child, &status, 0)
            }
            let sync = try await h.notes(["sync", h.folder("a")])
            #expect(sync.exitCode == 0, "\(sync.stderr)")
        }
    }

    /// The descriptor this process has open on `path`, found through `/proc/self/fd`.
    static func openDescriptor(of path: String) -> Int32? {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for entry in entries {
            guard let fd = Int32(entry),
                  let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)") else { continue }
            if link == target { return fd }
        }
        return nil
    }

    /// Starts `sleep 60` with a copy of `descriptor` as its fd 3 (`dup2` clears close-on-exec),
    /// standing for a forked child that has not yet exec'd.
    static func spawnHolding(_ descriptor: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, descriptor, 3)
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("60")]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, "/bin/sleep", &actions, nil, arguments + [nil], nil)
        guard code == 0 else { throw CLIError.failure("cannot start sleep: \(String(cString: strerror(code)))") }
        return pid
    }
}
