import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NotesCore
import NotesTestSupport
import Testing

/// The auth requests the tests make, on the shared live-server client.
extension TestAPIClient {
    /// `POST /v1/auth/login` with whatever answer comes back.
    func login(_ username: String, _ password: String, device: String? = nil) async throws -> TestAPIResponse {
        try await send("POST", "/v1/auth/login", json: LoginRequest(username: username, password: password, device: device))
    }

    /// Signs in and returns the tokens, failing the test unless the answer is 200.
    func signIn(_ username: String = TestAccount.username, _ password: String = TestAccount.password, device: String? = nil) async throws -> TokenResponse {
        let response = try await login(username, password, device: device)
        try #require(response.status == 200, "login answered \(response.status): \(response.text)")
        return try response.decode(TokenResponse.self)
    }

    /// `POST /v1/auth/refresh` with whatever answer comes back.
    func refresh(_ refreshToken: String) async throws -> TestAPIResponse {
        try await send("POST", "/v1/auth/refresh", json: RefreshRequest(refreshToken: refreshToken))
    }

    /// Creates a personal token and returns it, secret included.
    func createToken(_ name: String, scope: TokenScope, expiresIn: Int? = nil, using token: String) async throws -> PersonalTokenResource {
        let response = try await send("POST", "/v1/tokens", json: CreateTokenRequest(name: name, scope: scope, expiresIn: expiresIn), token: token)
        try #require(response.status == 201, "token creation answered \(response.status): \(response.text)")
        return try response.decode(PersonalTokenResource.self)
    }

    /// The status of `GET /v1/me` with `token`, the cheapest "does this token work" probe.
    func me(_ token: String) async throws -> TestAPIResponse {
        try await send("GET", "/v1/me", token: token)
    }
}
