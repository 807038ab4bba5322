import Foundation
import NotesCore
import NotesTestSupport
import Synchronization
import Testing
@testable import notes_cli

/// A redirect must not carry the bearer token anywhere. The client follows no
/// redirect at all (the API never redirects, so one means a misconfigured or hostile server):
/// it reports the target and exits 1.
@Suite("Client: redirects are never followed")
struct ClientRedirectTests {
    enum Target: String, CaseIterable, Sendable {
        case otherOrigin = "another port"
        case sameOrigin = "the same origin"
    }

    @Test("a 307 from the server sends nothing to its target, no token included, and `notes ls` exits 1 naming it",
          arguments: Target.allCases)
    func redirectIsRefused(target: Target) async throws {
        // The second loopback listener records whatever reaches it.
        let elsewhere = try ScriptedHTTPServer { _ in .json(200, #"{"notes":[]}"#) }
        defer { elsewhere.stop() }
        let location = Mutex<String>("")
        let fixture = try HostileServerFixture { request in
            guard request.path == "/v1/notes" else { return .json(200, #"{"notes":[]}"#) }
            return .respond(status: 307, headers: ["Location": location.withLock { $0 }], body: Data())
        }
        defer { fixture.stop() }
        let base = target == .otherOrigin ? elsewhere.baseURL : fixture.server.baseURL
        location.withLock { $0 = base + "/v1/elsewhere?limit=500" }

        let result = try await fixture.notes(["ls"])
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("redirect to \(base)/v1/elsewhere"), "\(result.stderr)")
        #expect(result.stderr.contains("never follows redirects"))
        #expect(result.stdout.isEmpty)
        // Nothing reached the target at all, so certainly no `Authorization: Bearer npt_scripted`.
        #expect(elsewhere.requests.isEmpty)
        #expect(fixture.server.requests.map(\.path) == ["/v1/notes"])
    }
}
