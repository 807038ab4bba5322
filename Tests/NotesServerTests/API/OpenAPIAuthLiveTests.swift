import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// The live server's sign-in, session, personal-token and throttling answers match the
/// statuses, headers and schemas the OpenAPI document gives for them.
@Suite("OpenAPI document: live auth answers")
struct OpenAPIAuthLiveTests {
    @Test func tokenAnswersAndScopeRefusalsMatchTheDocument() async throws {
        try await LiveServer.with(account: .added) { _, client in
            let spec = try OpenAPIConformance.published()
            var api = client
            api.token = try await client.signIn().accessToken

            let created = try await api.send("POST", "/v1/tokens", json: CreateTokenRequest(name: "ci", scope: .read, expiresIn: 3600))
            spec.check(created, "POST", "/v1/tokens", status: 201)
            let reader = try created.decode(PersonalTokenResource.self)
            let readSecret = try #require(reader.token)
            spec.check(try await api.send("POST", "/v1/tokens", json: CreateTokenRequest(name: "", scope: .write)),
                       "POST", "/v1/tokens", status: 400, code: "invalid_json")
            spec.check(try await api.send("GET", "/v1/tokens"), "GET", "/v1/tokens", status: 200)

            // A read token may read, but not manage tokens, write notes or sign out a session.
            spec.check(try await api.send("GET", "/v1/me", token: readSecret), "GET", "/v1/me", status: 200)
            spec.check(try await api.send("GET", "/v1/tokens", token: readSecret), "GET", "/v1/tokens", status: 403, code: "insufficient_scope")
            spec.check(try await api.send("POST", "/v1/tokens", json: CreateTokenRequest(name: "more", scope: .write), token: readSecret),
                       "POST", "/v1/tokens", status: 403, code: "insufficient_scope")
            spec.check(try await api.send("DELETE", "/v1/tokens/\(reader.id)", token: readSecret),
                       "DELETE", "/v1/tokens/{id}", status: 403, code: "insufficient_scope")
            spec.check(try await api.send("PUT", "/v1/notes/\(NoteID())", json: PutNoteRequest(path: "a.md", content: "x"),
                                          token: readSecret, headers: ["If-None-Match": "*"]),
                       "PUT", "/v1/notes/{id}", status: 403, code: "insufficient_scope")
            spec.check(try await api.send("POST", "/v1/batch", json: BatchRequest(operations: []), token: readSecret),
                       "POST", "/v1/batch", status: 403, code: "insufficient_scope")
            spec.check(try await api.send("POST", "/v1/auth/logout", token: readSecret),
                       "POST", "/v1/auth/logout", status: 400, code: "not_a_session")
            spec.check(try await api.send("GET", "/v1/tokens", authorization: "Bearer two words"),
                       "GET", "/v1/tokens", status: 400, code: "invalid_request")

            spec.check(try await api.send("DELETE", "/v1/tokens/\(reader.id)"), "DELETE", "/v1/tokens/{id}", status: 204)
            spec.check(try await api.send("DELETE", "/v1/tokens/\(reader.id)"), "DELETE", "/v1/tokens/{id}", status: 404, code: "token_not_found")
            spec.check(try await api.send("GET", "/v1/me", token: readSecret), "GET", "/v1/me", status: 401, code: "invalid_token")
        }
    }

    @Test func refreshAndLogoutAnswersMatchTheDocument() async throws {
        // No grace: replaying a spent refresh token is refused at once, as after the grace.
        try await LiveServer.with(["--refresh-grace", "0"], account: .added) { _, client in
            let spec = try OpenAPIConformance.published()
            let first = try await client.signIn()
            let spent = try #require(first.refreshToken)
            spec.check(try await client.refresh(spent), "POST", "/v1/auth/refresh", status: 200)
            spec.check(try await client.refresh(spent), "POST", "/v1/auth/refresh", status: 401, code: "invalid_grant")
            spec.check(try await client.refresh("nrt_unknown"), "POST", "/v1/auth/refresh", status: 401, code: "invalid_grant")
            spec.check(try await client.send("POST", "/v1/auth/refresh", body: Data("[]".utf8)),
                       "POST", "/v1/auth/refresh", status: 400, code: "invalid_json")

            let second = try await client.signIn()
            spec.check(try await client.send("POST", "/v1/auth/logout", token: second.accessToken), "POST", "/v1/auth/logout", status: 204)
            spec.check(try await client.send("POST", "/v1/auth/logout", token: second.accessToken),
                       "POST", "/v1/auth/logout", status: 401, code: "invalid_token")
            spec.check(try await client.send("POST", "/v1/auth/logout"), "POST", "/v1/auth/logout", status: 401, code: "unauthenticated")
        }
    }

    @Test func throttledSignInAndRateLimitedRequestsAnswer429AsDocumented() async throws {
        // One sign-in attempt per account per 15 minutes: the second is refused by the login throttle.
        try await LiveServer.with(["--login-attempts", "1"], account: .added) { _, client in
            let spec = try OpenAPIConformance.published()
            spec.check(try await client.login(TestAccount.username, "wrong"), "POST", "/v1/auth/login",
                       status: 401, code: "invalid_credentials")
            spec.check(try await client.login(TestAccount.username, "wrong"), "POST", "/v1/auth/login",
                       status: 429, code: "too_many_requests")
        }
        // One request a minute per address: the second, on any route, is refused by the rate limiter.
        // (A slot comes back only after 60 s, so a slow machine cannot make this pass by accident.)
        try await LiveServer.with(["--requests-per-minute", "1"], account: .none) { _, client in
            let spec = try OpenAPIConformance.published()
            spec.check(try await client.send("GET", "/v1/limits"), "GET", "/v1/limits", status: 200)
            spec.check(try await client.send("GET", "/v1/limits"), "GET", "/v1/limits", status: 429, code: "too_many_requests")
            spec.check(try await client.login(TestAccount.username, "wrong"), "POST", "/v1/auth/login",
                       status: 429, code: "too_many_requests")
            spec.check(try await client.send("GET", "/v1/me"), "GET", "/v1/me", status: 429, code: "too_many_requests")
        }
    }
}
