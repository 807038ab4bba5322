import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

#if canImport(Glibc)
import Glibc
#endif

/// Guards: lock, mass-delete, `.notesignore`, safe paths, case clashes (docs/architecture.md, Sync invariants 8, 9).
@Suite("Sync guards end to end")
struct SyncGuardTests {
    @Test("a second sync of the same folder fails at once while one runs")
    func lockAllowsOneSyncPerFolder() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            let held = try SyncLock(path: h.folder("a") + "/.notes/lock")
            let blocked = try await h.notes(["sync", h.folder("a")])
            #expect(blocked.exitCode == 1)
            #expect(blocked.stderr.contains("another sync is running"))
            withExtendedLifetime(held) {}
        }
    }

    @Test("an emptied folder does not delete every note on the server without --allow-mass-delete")
    func massDeleteGuardLocal() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            for i in 0..<3 { try h.write("a", "n\(i).md", "\(i)\n") }
            try await h.sync("a")
            for i in 0..<3 { try h.remove("a", "n\(i).md") }
            let refused = try await h.notes(["sync", h.folder("a")])
            #expect(refused.exitCode == 1)
            #expect(refused.stderr.contains("--allow-mass-delete"))
            #expect(try await h.serverNotes().count == 3)
            try await h.sync("a", ["--allow-mass-delete"])
            #expect(try await h.serverNotes().isEmpty)
        }
    }

    @Test("more than half of over 20 notes deleted on the server is not applied locally without --allow-mass-delete")
    func massDeleteGuardRemote() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            for i in 0..<30 { try h.write("a", "n\(i).md", "\(i)\n") }
            try await h.sync("a")
            try await h.initFolder("b")
            try await h.sync("b")
            for i in 0..<25 { try h.remove("b", "n\(i).md") }
            try await h.sync("b", expect: 1)
            try await h.sync("b", ["--allow-mass-delete"])
            try await h.sync("a", expect: 1)
            #expect(try h.tree("a").count == 30)
            try await h.sync("a", ["--allow-mass-delete"])
            #expect(try h.tree("a").count == 5)
        }
    }

    @Test(".notesignore keeps matching files out of sync, in both directions' listings")
    func notesignoreExcludesFiles() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", ".notesignore", "# private\nprivate/\n*.draft.md\n!keep.draft.md\n")
            try h.write("a", "private/diary.md", "secret\n")
            try h.write("a", "x.draft.md", "draft\n")
            try h.write("a", "keep.draft.md", "kept\n")
            try h.write("a", "public.md", "hello\n")
            try await h.sync("a")
            #expect(Set(try await h.serverNotes().keys) == ["keep.draft.md", "public.md"])
            // Notes made elsewhere at an ignored path are not downloaded here either.
            try await h.createNotes([("private/from-phone.md", "p\n"), ("shared.md", "s\n")])
            try await h.sync("a")
            #expect(h.read("a", "private/from-phone.md") == nil)
            #expect(h.read("a", "shared.md") == "s\n")
        }
    }

    @Test("a symlinked folder cannot lead a server note outside the notes folder")
    func symlinkedParentIsRefused() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "seed.md", "s\n")
            try await h.sync("a")
            let outside = h.work.appending("outside").path
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: h.folder("a") + "/linked", withDestinationPath: outside)
            try await h.createNotes([("linked/evil.md", "pwned\n"), ("fine.md", "ok\n")])
            let report = try await h.sync("a")
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
            #expect(report.warnings.contains { $0.contains("linked/evil.md") })
            #expect(h.read("a", "fine.md") == "ok\n")
        }
    }

    @Test("on a case-insensitive disk, a server note whose name differs only in case from a local file makes a conflict copy")
    func caseInsensitiveDiskClashWithServerNote() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            // This machine's disks fold no case; the folder is told it is on one that does, as
            // macOS and Windows disks are, so the same rules run here.
            let configPath = h.folder("a") + "/.notes/config.json"
            var config = try WireJSON.decoder().decode(SyncFolder.Config.self, from: Data(contentsOf: URL(fileURLWithPath: configPath)))
            config.caseInsensitive = true
            try WireJSON.encoder().encode(config).write(to: URL(fileURLWithPath: configPath))
            try await h.createNotes([("Plan.md", "server plan\n")])
            try h.write("a", "plan.md", "local plan\n")
            let report = try await h.sync("a", expect: 3)
            #expect(report.conflicts.count == 1)
            #expect(h.read("a", "Plan.md") == "server plan\n")
            let copy = try #require(report.conflicts.first?.copy)
            #expect(report.conflicts.first?.reason == .caseClash)
            #expect(copy.hasPrefix("plan.conflict-a-"))
            #expect(h.read("a", copy) == "local plan\n")
            #expect(h.read("a", "plan.md") == nil)
            #expect(try await h.serverNotes() == ["Plan.md": "server plan\n", copy: "local plan\n"])
        }
    }

    @Test("names that differ only in case: the second becomes a conflict copy, never an overwrite")
    func caseOnlyClashBecomesAConflictCopy() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "Readme.md", "upper\n")
            try h.write("a", "readme.md", "lower\n")
            let report = try await h.sync("a", expect: 3)
            #expect(report.conflicts.count == 1)
            #expect(report.conflicts.first?.reason == .caseClash)
            let server = try await h.serverNotes()
            #expect(server.count == 2)
            #expect(Set(server.values) == ["upper\n", "lower\n"])
            #expect(try h.textTree("a") == server)
        }
    }
}

/// Limits: what the server refuses for its size fails alone, the rest syncs.
@Suite("Sync limits end to end")
struct SyncLimitTests {
    @Test("a note too large for the server once escaped on the wire is left local with a warning; the others sync")
    func oversizedRequestFailsAlone() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "ok.md", "fine\n")
            // 6 MB of control characters: 36 MB of JSON escapes, over the server's 32 MB request limit.
            try h.write("a", "escapes.md", Data(repeating: 0x01, count: 6 * 1024 * 1024))
            let report = try await h.sync("a")
            #expect(report.warnings.contains { $0.contains("escapes.md") })
            #expect(try await h.serverNotes().keys.sorted() == ["ok.md"])
            #expect(FileManager.default.contents(atPath: h.folder("a") + "/escapes.md")?.count == 6 * 1024 * 1024)
        }
    }
}
