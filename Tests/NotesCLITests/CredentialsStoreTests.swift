import Foundation
import NotesCommandLine
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

#if canImport(Glibc)
import Glibc
#endif

/// The credentials file: where it lives, who may read it, and how it is written.
@Suite("Credentials store")
struct CredentialsStoreTests {
    func mode(_ path: String) throws -> mode_t {
        var info = stat()
        try #require(stat(path, &info) == 0)
        return info.st_mode & 0o777
    }

    @Test("XDG_CONFIG_HOME wins, else HOME/.config, else an error")
    func location() throws {
        #expect(try CredentialStore(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]).fileURL.path == "/x/notes/credentials.json")
        #expect(try CredentialStore(environment: ["HOME": "/h"]).fileURL.path == "/h/.config/notes/credentials.json")
        #expect(throws: CredentialsError.self) { try CredentialStore(environment: ["XDG_CONFIG_HOME": "relative"]) }
    }

    @Test("the directory is 0700 and the file 0600, tightened if the directory was open, with no temp files left")
    func modesAndAtomicity() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.appending("notes")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let store = CredentialStore(directory: folder)
            let server = try ServerURL("https://notes.example.com")
            let session = StoredSession(server: server.string, username: "ada", accessToken: "nat_a", accessExpiresAt: 10,
                                        accessLifetime: 3600, refreshToken: "nrt_r")
            try await store.update { @Sendable file in file.store(session, makeDefault: true) }
            #expect(try mode(folder.path) == 0o700)
            #expect(try mode(store.fileURL.path) == 0o600)
            #expect(try store.session(for: server) == session)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }
            #expect(leftovers.isEmpty)
            #expect(!String(reflecting: session).contains("nat_a"))
        }
    }

    @Test("concurrent updates from many writers are serialised by the lock and none is lost")
    func concurrentUpdatesAreSerialised() async throws {
        try await withTemporaryDirectory { directory in
            let store = CredentialStore(directory: directory.appending("notes"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        try await store.update { @Sendable file in
                            // Half the writers add servers, half add accounts to one server.
                            let server = index % 2 == 0 ? "https://s\(index).example" : "https://shared.example"
                            file.store(StoredSession(server: server, userId: Int64(index + 1), username: "u\(index)", accessToken: "nat_\(index)",
                                                     accessExpiresAt: 0, accessLifetime: 1, refreshToken: "nrt_\(index)"), makeDefault: true)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let file = try store.load()
            #expect(file.servers.count == 7)
            #expect(file.sessions(server: "https://shared.example").count == 6)
        }
    }

    @Test("a version 1 file's session is read as its server's only account, unidentified until its user id is known, then keyed by it")
    func versionOneMigration() throws {
        let legacy = """
            {"version":1,"servers":{"https://n.example":{"server":"https://n.example","username":"ada","access_token":"nat_a",
            "access_expires_at":10,"access_lifetime":3600,"refresh_token":"nrt_a"}}}
            """
        var file = try WireJSON.decoder().decode(CredentialsFile.self, from: Data(legacy.utf8))
        let old = try #require(file.defaultSession(server: "https://n.example"))
        #expect(old.userId == nil && old.username == "ada" && old.refreshToken == "nrt_a")
        var identified = old
        identified.userId = 3
        file.store(identified, replacing: old, makeDefault: false)
        #expect(file.servers["https://n.example"]?.unidentified == nil)
        #expect(file.servers["https://n.example"]?.defaultUserId == 3)
        let written = String(decoding: try WireJSON.encoder().encode(file), as: UTF8.self)
        #expect(written.contains(#""version":2"#) && written.contains(#""accounts":{"3":"#))
        #expect(try WireJSON.decoder().decode(CredentialsFile.self, from: Data(written.utf8)) == file)
    }

    @Test("removing the default account leaves the only other one as the default, and several others without one")
    func defaultAfterRemoval() {
        func session(_ id: Int64, _ name: String) -> StoredSession {
            StoredSession(server: "https://n.example", userId: id, username: name, accessToken: "nat_\(id)", accessExpiresAt: 0,
                          accessLifetime: 1, refreshToken: "nrt_\(id)")
        }
        var file = CredentialsFile()
        for (id, name) in [(1, "ada"), (2, "bob"), (3, "cy")] { file.store(session(Int64(id), name), makeDefault: true) }
        #expect(file.defaultSession(server: "https://n.example")?.username == "cy")
        let keptNewer = file.remove(session(3, "cy"), ifRefreshTokenIn: ["nrt_other"])
        #expect(!keptNewer)  // a newer session stored meanwhile stays
        let removed = file.remove(session(3, "cy"), ifRefreshTokenIn: ["nrt_3"])
        #expect(removed)
        #expect(file.defaultSession(server: "https://n.example") == nil)  // ada or bob: the user must say
        file.remove(session(2, "bob"), ifRefreshTokenIn: ["nrt_2"])
        #expect(file.defaultSession(server: "https://n.example")?.username == "ada")
    }

    @Test("a damaged file is reported with what to do, not silently replaced")
    func damagedFile() async throws {
        try await withTemporaryDirectory { directory in
            let store = CredentialStore(directory: directory.url)
            try Data("{not json".utf8).write(to: store.fileURL)
            let error = #expect(throws: CredentialsError.self) { try store.load() }
            #expect(error.map { CLI.outcome(of: $0).sentence.contains("notes login") } == true)
        }
    }

    @Test("server URLs are normalised so one server has one entry", arguments: [
        ("HTTPS://Notes.Example.com:443/", "https://notes.example.com"),
        ("notes.example.com", "https://notes.example.com"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http://host:80/notes/", "http://host/notes"),
    ])
    func serverURLNormalisation(raw: String, canonical: String) throws {
        #expect(try ServerURL(raw).string == canonical)
    }

    @Test("server URLs that are not http(s) or carry a query are usage errors", arguments: ["ftp://x", "https://", "https://h/?a=1"])
    func badServerURLs(raw: String) {
        #expect(throws: UsageError.self) { try ServerURL(raw) }
    }

    @Test("query values are encoded strictly, so + & = and spaces survive")
    func queryEncoding() throws {
        let url = try #require(try ServerURL("http://h").url(path: "/v1/search", query: [("q", "a+b & c=d")]))
        #expect(url.absoluteString == "http://h/v1/search?q=a%2Bb%20%26%20c%3Dd")
    }
}
