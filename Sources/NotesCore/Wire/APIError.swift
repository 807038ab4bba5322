/// The body of every error answer: `{"error": {"code": "snake_case_code", "message": "..."}}`.
public struct APIErrorBody: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        /// A stable machine-readable code such as `invalid_credentials` or `resync_required`.
        public var code: String
        /// One human sentence; it never contains a secret or internal detail.
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var error: Detail

    public init(code: String, message: String) {
        error = Detail(code: code, message: message)
    }
}

extension APIErrorBody: WireDescribed {
    public static let wireShape = WireShape<APIErrorBody>("Error", fields: [.required("error", \.error)])
}

extension APIErrorBody.Detail: WireDescribed {
    public static let wireShape = WireShape<APIErrorBody.Detail>(
        "ErrorDetail", draft: APIErrorBody.Detail(code: "", message: ""),
        fields: [
            .required("code", \.code, ["description": "Stable snake_case code to branch on.", "example": "precondition_failed"]),
            .required("message", \.message, ["description": "One human sentence; never a secret or internal detail."]),
        ])
}
