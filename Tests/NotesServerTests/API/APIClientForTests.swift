import Foundation
import NotesCore
import NotesTestSupport

/// The password every test user gets.
let testPassword = TestAccount.password

/// Starts a real server with its own database, signs in a user `alice`, runs `body`, and
/// stops the server whatever happens.
func withAPIServer(extraArguments: [String] = [], _ body: (TestServer, TestAPIClient) async throws -> Void) async throws {
    try await withServer(extraArguments) { server in
        try await server.addUser("alice", password: testPassword)
        let api = try await TestAPIClient(baseURL: server.baseURL).signedIn("alice", password: testPassword)
        try await body(server, api)
    }
}
