/// `POST /v1/auth/device` (RFC 8628 §3.1): a device without a browser asks for a code pair.
public struct DeviceAuthorizationRequest: Codable, Sendable, Equatable {
    /// A name for the session it will get, shown to the person approving it.
    public var device: String?

    public init(device: String? = nil) {
        self.device = device
    }
}

/// The answer to `POST /v1/auth/device` (RFC 8628 §3.2).
public struct DeviceAuthorizationResponse: Codable, Sendable, Equatable {
    /// The device's secret, polled with at `POST /v1/auth/token`.
    public var deviceCode: String
    /// What the person types on the approval page, shown as `XXXX-XXXX`.
    public var userCode: String
    /// The approval page (`/device` on this server).
    public var verificationUri: String
    /// The approval page with the user code filled in.
    public var verificationUriComplete: String
    /// Seconds until both codes expire.
    public var expiresIn: Int
    /// Seconds to wait between polls.
    public var interval: Int

    public init(deviceCode: String, userCode: String, verificationUri: String, verificationUriComplete: String,
                expiresIn: Int, interval: Int) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationUri = verificationUri
        self.verificationUriComplete = verificationUriComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }
}

/// `POST /v1/auth/token` with the device code grant (RFC 8628 §3.4): one poll.
public struct DeviceTokenRequest: Codable, Sendable, Equatable {
    public static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    public var grantType: String
    public var deviceCode: String

    public init(deviceCode: String) {
        self.grantType = Self.grantType
        self.deviceCode = deviceCode
    }
}

extension DeviceAuthorizationRequest: WireDescribed {
    public static let wireShape = WireShape<DeviceAuthorizationRequest>("DeviceAuthorizationRequest", fields: [
        .optional("device", \.device, [
            "nullable": true,
            "description": "A name for the session, shown to the person approving it (default: \"A device\").",
        ]),
    ])
}

extension DeviceAuthorizationResponse: WireDescribed {
    public static let wireShape = WireShape<DeviceAuthorizationResponse>("DeviceAuthorization", fields: [
        .required("device_code", \.deviceCode, ["description": "The device's secret, polled with at `POST /v1/auth/token`."]),
        .required("user_code", \.userCode, [
            "pattern": "^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$",
            "description": "What the person types on the approval page.",
        ]),
        .required("verification_uri", \.verificationUri, ["description": "The approval page, `/device` on this server."]),
        .required("verification_uri_complete", \.verificationUriComplete,
                  ["description": "The approval page with the code filled in."]),
        .required("expires_in", \.expiresIn, ["description": "Seconds until both codes expire."]),
        .required("interval", \.interval, ["description": "Seconds to wait between polls."]),
    ])
}

extension DeviceTokenRequest: WireDescribed {
    public static let wireShape = WireShape<DeviceTokenRequest>("DeviceTokenRequest", fields: [
        .required("grant_type", \.grantType, ["enum": [.string(grantType)]]),
        .required("device_code", \.deviceCode, ["description": "The device code from `POST /v1/auth/device`."]),
    ])
}
