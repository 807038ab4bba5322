import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// A space "Team" owned by alice, with bob as editor and carol as viewer, and dave who belongs
/// to none, in one in-process app on this pass's backend; tokens for each.
struct SpaceFixture {
    let app: TestApp
    let alice: String, bob: String, carol: String, dave: String
    let team: Int64

    static let password = "a long enough password"

    /// Runs `body` with the fixture; `configure` adjusts the app's configuration.
    static func with(_ configure: (inout ServerConfiguration) -> Void = { _ in },
                     _ body: (SpaceFixture) async throws -> Void) async throws {
        let app = try TestApp(configure)
        defer { app.close() }
        let fixture = try await make(app)
        try await body(fixture)
    }

    /// Adds the four accounts to `app` and makes Team with its members.
    static func make(_ app: TestApp) async throws -> SpaceFixture {
        var tokens: [String] = []
        for name in ["alice", "bob", "carol", "dave"] {
            try app.addUser(name, password: password)
            tokens.append(try await token(app, name))
        }
        let created = try await app.send("POST", "/v1/spaces", json: SpaceNameRequest(name: "Team"), token: tokens[0])
        try #require(created.status == 201, "creating Team answered \(created.status): \(created.text)")
        let team = try created.decode(SpaceResource.self).id
        for (name, role) in [("bob", SpaceRole.editor), ("carol", .viewer)] {
            let added = try await app.send("POST", "/v1/spaces/\(team)/members", json: SpaceMemberRequest(username: name, role: role),
                                           token: tokens[0])
            try #require(added.status == 201, "adding \(name) answered \(added.status): \(added.text)")
        }
        return SpaceFixture(app: app, alice: tokens[0], bob: tokens[1], carol: tokens[2], dave: tokens[3], team: team)
    }

    /// A session's access token for `username`.
    static func token(_ app: TestApp, _ username: String) async throws -> String {
        let response = try await app.login(username, password)
        try #require(response.status == 200, "login of \(username) answered \(response.status)")
        return try response.decode(TokenResponse.self).accessToken
    }

    /// The id of the account `username` (also its personal space's).
    func account(_ username: String) throws -> Int64 {
        try app.count("SELECT id FROM users WHERE username_key = '\(username)'")
    }

    /// `/v1/spaces/{team}` followed by `rest`.
    var teamPath: String { "/v1/spaces/\(team)" }

    /// Creates a note in Team as the holder of `token`, failing the test unless it is created.
    func create(_ path: String, _ content: String, as token: String) async throws -> NoteResource {
        let response = try await app.send("PUT", "\(teamPath)/notes/\(NoteID())", json: PutNoteRequest(path: path, content: content),
                                          token: token, headers: ["If-None-Match": "*"])
        try #require(response.status == 201, "creating \(path) answered \(response.status): \(response.text)")
        return try response.decode(NoteResource.self)
    }

    /// The changes page carol's long poll on Team answers once `write` ran while it was held.
    func changesCarolSees(after write: () async throws -> Void) async throws -> ChangesPage {
        let cursor = try await app.send("GET", "\(teamPath)/changes", token: carol).decode(ChangesPage.self).cursor
        async let held = app.send("GET", "\(teamPath)/changes", query: ["since": cursor, "wait": "30"], token: carol)
        try await SpaceNonMemberTests.waitUntilHeld(app, space: team)
        try await write()
        return try await held.decode(ChangesPage.self)
    }

    /// The live paths of Team as `token` lists them.
    func paths(as token: String) async throws -> [String] {
        let response = await app.send("GET", "\(teamPath)/notes", token: token)
        try #require(response.status == 200, "listing answered \(response.status): \(response.text)")
        return try response.decode(NoteListPage.self).notes.map(\.path).sorted()
    }
}
