import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `notes-server backup FILE` with a `postgres://` `--db`: PostgreSQL's own `pg_dump
/// --format=custom`, which reads every table (attachment bytes included, `content_chunks`) in one
/// snapshot while servers keep running; `pg_restore` brings it back into an empty database.
///
/// The password, when the URL has one, reaches `pg_dump` through `PGPASSWORD` in its environment,
/// never its arguments (which `ps` shows to every user). `pg_dump` must be at least as new as the
/// server (an older one refuses to dump it): checked first, with a message saying what to install.
struct PostgresBackup {
    let url: PostgresURL
    let destination: String
    /// `--pg-dump PATH`, else found on `PATH` or in Debian's `/usr/lib/postgresql/N/bin`.
    let pgDump: String?

    func run() throws {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw AdminError("\(destination) already exists; choose a new file")
        }
        let program = try findPgDump()
        let serverMajor = try serverVersion()
        let dumpMajor = try Self.majorVersion(of: program)
        guard dumpMajor >= serverMajor else {
            throw AdminError("\(program) is PostgreSQL \(dumpMajor)'s pg_dump, older than the server (\(serverMajor)), which it cannot dump; "
                             + "install the client of version \(serverMajor) or newer (Debian: postgresql-client-\(serverMajor)) and pass it with --pg-dump PATH")
        }
        // Created here, exclusively and private (it holds password and token hashes); pg_dump
        // then writes into it, keeping the mode.
        let fd = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AdminError("cannot create \(destination): \(String(cString: strerror(errno)))") }
        close(fd)
        var environment = ProcessInfo.processInfo.environment
        if let password = url.password { environment["PGPASSWORD"] = password }
        let status = try ChildProgram.run(program, ["--format=custom", "--no-password", "--file=" + destination,
                                                    "--dbname=" + Self.connectionString(url)], environment: environment).status
        guard status == 0 else {
            unlink(destination)
            throw AdminError("pg_dump failed (exit \(status)); its message is above. Nothing was kept at \(destination)")
        }
        // pg_restore reads the archive's table of contents back: a truncated file fails here.
        let restore = (program as NSString).deletingLastPathComponent + "/pg_restore"
        if FileManager.default.isExecutableFile(atPath: restore) {
            let listed = try ChildProgram.run(restore, ["--list", destination], environment: environment, captureOutput: true)
            guard listed.status == 0, listed.output.contains("TABLE DATA") else {
                throw AdminError("pg_restore cannot read the backup \(destination) back (exit \(listed.status)); do not rely on it")
            }
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
        printLine("Backed up \(url) to \(destination) (pg_dump custom format, \(size) bytes, attachments included). "
                  + "Restore into an empty database with: pg_restore --no-owner --dbname=URL \(destination)")
    }

    /// The PostgreSQL major version of the server (`server_version_num` 150018 is 15), after
    /// checking the database holds a Notes schema.
    private func serverVersion() throws -> Int {
        let connection = try PostgresConnection(url: url, extra: ["application_name": "notes-server backup"])
        defer { connection.close() }
        guard try PostgresSchema.version(connection) > 0 else {
            throw AdminError("no Notes database at \(url) (its schema is not there; `serve` creates it)")
        }
        let number = Int(try connection.scalarString("SHOW server_version_num") ?? "") ?? 0
        return number / 10_000
    }

    private func findPgDump() throws -> String {
        if let pgDump {
            guard FileManager.default.isExecutableFile(atPath: pgDump) else { throw AdminError("--pg-dump: \(pgDump) is not an executable file") }
            return pgDump
        }
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/pg_dump" }
        let debian = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .compactMap(Int.init).sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin/pg_dump" }
        guard let found = (path + debian).first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw AdminError("backing up PostgreSQL needs pg_dump, which is not installed (Debian: apt install postgresql-client); "
                             + "or pass one with --pg-dump PATH")
        }
        return found
    }

    /// The major version `pg_dump --version` reports ("pg_dump (PostgreSQL) 15.18 (Debian ...)" is 15).
    static func majorVersion(of program: String) throws -> Int {
        let answer = try ChildProgram.run(program, ["--version"], environment: ProcessInfo.processInfo.environment, captureOutput: true)
        guard answer.status == 0, let version = answer.output.split(separator: " ").first(where: { $0.first?.isNumber == true }),
              let major = Int(version.prefix(while: \.isNumber)) else {
            throw AdminError("\(program) --version did not say its version; is it pg_dump?")
        }
        return major
    }

    /// libpq's `key='value'` form of every keyword of `url` but the password.
    static func connectionString(_ url: PostgresURL) -> String {
        url.connectionKeywords(["application_name": "notes-server backup"])
            .filter { $0.0 != "password" }
            .map { "\($0.0)='\($0.1.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'"))'" }
            .joined(separator: " ")
    }
}

/// Runs a program to its end with `posix_spawn` (Foundation's `Process` can crash on this
/// toolchain): stdin from `/dev/null`, stderr to ours, stdout to ours or captured.
enum ChildProgram {
    static func run(_ path: String, _ arguments: [String], environment: [String: String],
                    captureOutput: Bool = false) throws -> (status: Int32, output: String) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        var ends: [Int32] = [-1, -1]
        if captureOutput {
            guard pipe(&ends) == 0 else { throw AdminError("cannot make a pipe: \(String(cString: strerror(errno)))") }
            posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO)
            posix_spawn_file_actions_addclose(&actions, ends[0])
            posix_spawn_file_actions_addclose(&actions, ends[1])
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        if captureOutput { close(ends[1]) }
        guard spawned == 0 else {
            if captureOutput { close(ends[0]) }
            throw AdminError("cannot run \(path): \(String(cString: strerror(spawned)))")
        }
        var output: [UInt8] = []
        if captureOutput {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, 4096) }
                if count > 0 { output += buffer[..<count]; continue }
                if count < 0 && errno == EINTR { continue }
                break
            }
            close(ends[0])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = (status & 0x7F) == 0
        return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), String(decoding: output, as: UTF8.self))
    }
}
