import Foundation
import NotesCore

/// Notes' own device authorization grant (RFC 8628), for `notes login --device` on a machine
/// without a browser:
///
/// 1. `POST /v1/auth/device` — the device gets a device code (its secret) and a short user code.
/// 2. A person opens `/device` in the web app, signed in by any method, types the user code and
///    approves or denies (`DevicePages`).
/// 3. `POST /v1/auth/token` with `grant_type=urn:ietf:params:oauth:grant-type:device_code` —
///    the device polls; `SignInController` hands the grant to `exchange` here.
///
/// RFC 8628's token errors come in the API's own error shape: its `error` value is the error's
/// `code` (`{"error": {"code": "authorization_pending", "message": "…"}}`), always with 400.
struct DeviceController: Sendable {
    let devices: DeviceCodeStore
    let users: UserStore
    let sessions: SessionStore
    /// The server's public address, when configured (`--public-url`); else the request's `Host`.
    let publicURL: URL?

    func register(in router: inout Router) {
        router.add("POST", "/v1/auth/device", access: .open) { context in
            let body = context.request.body.isEmpty ? DeviceAuthorizationRequest() : try context.decode(DeviceAuthorizationRequest.self)
            let name = Label.clean(body.device ?? "")
            let issued = try devices.issue(deviceName: name.isEmpty ? "A device" : name, address: context.request.remoteAddress)
            let page = verificationURI(for: context.request)
            var response = HTTPResponse.wire(DeviceAuthorizationResponse(
                deviceCode: issued.deviceCode, userCode: DeviceCodeStore.display(issued.userCode), verificationUri: page,
                verificationUriComplete: page + "?code=" + DeviceCodeStore.display(issued.userCode),
                expiresIn: issued.expiresIn, interval: issued.interval))
            response.headers["Cache-Control"] = "no-store"
            return .now(response)
        }
    }

    /// One poll of the device code grant: the session once approved, else RFC 8628's answer.
    func exchange(_ body: DeviceTokenRequest) throws -> HTTPResponse {
        switch try devices.poll(deviceCode: body.deviceCode) {
        case .approved(let userID, let device):
            guard let user = try users.find(id: userID) else { throw Self.error("invalid_grant", "The account no longer exists.") }
            guard !user.disabled else { throw AuthController.accountDisabled }
            return AuthController.tokenResponse(try sessions.create(userID: user.id, device: device), user: user)
        case .pending:
            throw Self.error("authorization_pending", "Not approved yet: poll again after the interval.")
        case .slowDown(let interval):
            throw Self.error("slow_down", "Polled too often: wait \(interval) seconds between polls from now on.")
        case .denied:
            throw Self.error("access_denied", "The sign-in was denied in the browser.")
        case .expired:
            throw Self.error("expired_token", "The device code expired before it was approved; ask for a new one.")
        case .invalid:
            throw Self.error("invalid_grant", "The device code is unknown, or was already exchanged for a session.")
        }
    }

    private static func error(_ code: String, _ message: String) -> HTTPError {
        var error = HTTPError(400, code: code, message: message)
        error.headers["Cache-Control"] = "no-store"
        return error
    }

    /// `https://notes.example.org/device`: from `--public-url`, else from how the device reached
    /// this server (its `Host`, which it chose itself, so it can only mislead itself).
    private func verificationURI(for request: HTTPRequest) -> String {
        if let publicURL {
            let base = publicURL.absoluteString
            return (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/device"
        }
        let host = request.headers["Host"].flatMap { host in
            host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) } && !host.isEmpty ? host : nil
        } ?? "localhost"
        return (request.isSecure ? "https://" : "http://") + host + "/device"
    }
}
