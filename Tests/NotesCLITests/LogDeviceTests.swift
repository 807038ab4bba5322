import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// `notes log` names the device behind each revision (its columns: rev, time, device, size):
/// two machines signed in with their own device names edit one note through the real
/// binaries, and a script writes with a personal token.
@Suite("Log devices")
struct LogDeviceTests {
    @Test func logShowsTheDeviceOfEachRevisionFromTwoMachinesAndAToken() async throws {
        try await LiveServer.with(account: .added) { laptop in
            let desktop = LiveServer(server: laptop.server, home: try TemporaryDirectory("notes-home-desktop"), work: laptop.work)
            defer { desktop.home.remove() }
            for (machine, name) in [(laptop, "laptop"), (desktop, "desktop")] {
                let login = try await machine.notes(["login", "--server", machine.serverURL, "--username", TestAccount.username,
                                                     "--password-stdin", "--device-name", name], stdin: TestAccount.password + "\n")
                #expect(login.exitCode == 0, "\(login.stderr)")
            }
            let work = try TemporaryDirectory("notes-log-device")
            defer { work.remove() }
            let a = work.appending("A").path, b = work.appending("B").path

            #expect(try await laptop.notes(["init", a, "--server", laptop.serverURL]).exitCode == 0)
            try "one\n".write(toFile: a + "/plan.md", atomically: true, encoding: .utf8)
            #expect(try await laptop.notes(["sync", a]).exitCode == 0)                       // rev: created on the laptop
            #expect(try await desktop.notes(["clone", desktop.serverURL, b]).exitCode == 0)
            try "one\ntwo\n".write(toFile: b + "/plan.md", atomically: true, encoding: .utf8)
            #expect(try await desktop.notes(["sync", b]).exitCode == 0)                      // edited on the desktop
            #expect(try await laptop.notes(["sync", a]).exitCode == 0)
            try FileManager.default.removeItem(atPath: a + "/plan.md")
            #expect(try await laptop.notes(["sync", a, "--allow-mass-delete"]).exitCode == 0)  // deleted on the laptop

            let created = try await desktop.notes(["token", "create", "nightly", "--scope", "write"])
            #expect(created.exitCode == 0, "\(created.stderr)")
            let token = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let restore = try await ProcessRunner.run(BuiltProducts.client, ["restore", "plan.md"],
                                                      environment: desktop.environment.merging(["NOTES_TOKEN": token,
                                                                                                "NOTES_SERVER": desktop.serverURL]) { $1 })
            #expect(restore.exitCode == 0, "\(restore.stderr)")                              // restored by a script (PUT)

            let log = try await desktop.notes(["log", "plan.md", "--json"])
            #expect(log.exitCode == 0, "\(log.stderr)")
            let output = try WireJSON.decoder().decode(LogCommand.Output.self, from: Data(log.stdout.utf8))
            #expect(output.revisions.map(\.change) == ["restored", "deleted", "edited", "created"])
            #expect(output.revisions.map(\.device) == ["token:nightly", "laptop", "desktop", "laptop"])

            let text = try await laptop.notes(["log", "plan.md"])
            let lines = text.stdout.split(separator: "\n")
            #expect(lines.count == 4 && lines[2].contains("\tdesktop\t") && lines[3].contains("\tlaptop\t"), "\(text.stdout)")
        }
    }

    /// A session that gave no device name (an older client, a bare API call) records none, and
    /// the log says so with "-" rather than inventing one.
    @Test func aRevisionWithoutARecordedDeviceShowsNone() async throws {
        try await LiveServer.with(account: .added) { harness in
            // LoginRequest without a device, as an older client signs in.
            let bare = try await TestAPIClient(harness.server).signedIn(TestAccount.username, password: TestAccount.password)
            _ = try await bare.create("bare.md", "x\n")
            try await harness.login()
            let log = try await harness.notes(["log", "bare.md", "--json"])
            let output = try WireJSON.decoder().decode(LogCommand.Output.self, from: Data(log.stdout.utf8))
            #expect(output.revisions.count == 1 && output.revisions.first?.device == nil)
            #expect(!log.stdout.contains("\"device\""))
            let text = try await harness.notes(["log", "bare.md"])
            #expect(text.stdout.contains("\t-\t"), "\(text.stdout)")
        }
    }
}
