import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The real `notes` binary pointed at a `ScriptedHTTPServer` playing a broken or hostile
/// server, with a private HOME and a personal token (no sign-in round trips to script).
struct HostileServerFixture {
    let work: TemporaryDirectory
    let server: ScriptedHTTPServer

    /// Starts `handler` on a loopback port with a fresh work folder. `GET /v1/me` answers the
    /// token's owner unless `handler` answers it: binding a folder (clone, init) asks whose
    /// `NOTES_TOKEN` it is, and these tests are about what comes after.
    init(_ handler: @escaping @Sendable (ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Reply) throws {
        work = try TemporaryDirectory("notes-hostile")
        server = try ScriptedHTTPServer { request in
            let reply = handler(request)
            if request.path == "/v1/me", case .respond(status: 404, _, _) = reply { return Self.tokenOwner }
            return reply
        }
    }

    /// The owner of the fixture's personal token, as the real server describes a user.
    static let tokenOwner = ScriptedHTTPServer.Reply.json(200, #"{"id":1,"username":"ada","created_at":"2026-01-01T00:00:00.000Z"}"#)

    func stop() {
        server.stop()
        work.remove()
    }

    /// Short request timeouts through the test-only variable (seconds), so a stalled or
    /// trickling server is given up on in seconds rather than minutes.
    static func shortTimeouts(idle: Int, deadline: Int) -> [String: String] {
        ["NOTES_TEST_REQUEST_TIMEOUTS": "\(idle),\(deadline)"]
    }

    var environment: [String: String] {
        ["HOME": work.path, "XDG_CONFIG_HOME": work.appending("config").path,
         "NOTES_TOKEN": "npt_scripted", "NOTES_SERVER": server.baseURL]
    }

    /// Where `clone` puts the notes.
    var folder: URL { work.appending("folder") }

    /// Runs `notes ARGS`, killed if still running after a minute (far beyond what any of these
    /// cases needs once the client bounds its waits; without the bounds they would hang).
    /// - Parameter executable: another program to run instead (one that runs `notes` itself).
    func notes(_ arguments: [String], environment extra: [String: String] = [:], executable: String? = nil,
               sourceLocation: SourceLocation = #_sourceLocation) async throws -> ProcessResult {
        let program = executable.map { URL(fileURLWithPath: $0) } ?? BuiltProducts.client
        let (result, byItself) = try await ProcessRunner.run(program, arguments,
                                                            environment: environment.merging(extra) { $1 },
                                                            killAfter: .seconds(60))
        #expect(byItself, "notes \(arguments) did not end by itself within a minute", sourceLocation: sourceLocation)
        return result
    }

    /// Every file under `folder` outside `.notes/`, as relative paths.
    func notesWritten() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if path == ".notes" { enumerator?.skipDescendants(); continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path, isDirectory: &isDirectory),
               !isDirectory.boolValue { files.append(path) }
        }
        return files.sorted()
    }

    /// A live note as the server would send it; `hash` defaults to the content's true hash.
    static func note(_ path: String, _ content: String?, hash: String? = nil, rev: Int64 = 1) -> NoteResource {
        NoteResource(id: NoteID(), path: path, content: content, hash: hash ?? SHA256.hex(of: content ?? ""), rev: rev,
                     size: content?.utf8.count ?? 0, createdAt: "2026-01-01T00:00:00.000Z",
                     updatedAt: "2026-01-01T00:00:00.000Z", deleted: false)
    }

    /// `value` as a `200` wire-JSON answer.
    static func json<T: Encodable>(_ value: T) -> ScriptedHTTPServer.Reply {
        .respond(status: 200, headers: ["Content-Type": "application/json"], body: (try? WireJSON.encoder().encode(value)) ?? Data())
    }

    /// The `since` a changes request asked for ("" when none).
    static func since(_ request: ScriptedHTTPServer.Request) -> String {
        URLComponents(string: "/?" + request.query)?.queryItems?.first { $0.name == "since" }?.value ?? ""
    }
}
