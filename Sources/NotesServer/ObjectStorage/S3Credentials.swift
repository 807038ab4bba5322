import Foundation

/// The access key an S3-compatible store signs requests with (`SigV4Signer`).
///
/// Read from `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`, or from a file in AWS's shared
/// credentials format (`--s3-credentials-file`); never from the command line. The description
/// names the key id only: the secret never reaches a log line or an error message.
struct S3Credentials: Sendable, CustomStringConvertible {
    let accessKeyID: String
    let secretAccessKey: String

    var description: String { "access key \(accessKeyID)" }

    /// The credentials in `environment`, else in the file at `path` (its `[default]` profile or
    /// the one `AWS_PROFILE` names).
    /// - Throws: `S3ConfigurationError` naming what is missing, never a secret.
    static func load(environment: [String: String], file path: String?) throws -> S3Credentials {
        if let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty {
            guard let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
                throw S3ConfigurationError("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")
            }
            return S3Credentials(accessKeyID: id, secretAccessKey: secret)
        }
        guard let path else {
            throw S3ConfigurationError("an s3:// content store needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or pass --s3-credentials-file")
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw S3ConfigurationError("cannot read the S3 credentials file \(path)")
        }
        let profile = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        let values = parseProfile(profile, in: text)
        guard let id = values["aws_access_key_id"], !id.isEmpty,
              let secret = values["aws_secret_access_key"], !secret.isEmpty else {
            throw S3ConfigurationError("the S3 credentials file \(path) has no aws_access_key_id and aws_secret_access_key under [\(profile)]")
        }
        return S3Credentials(accessKeyID: id, secretAccessKey: secret)
    }

    /// The `key = value` lines under `[profile]` of an INI-style credentials file.
    static func parseProfile(_ profile: String, in text: String) -> [String: String] {
        var values: [String: String] = [:]
        var inProfile = false
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                inProfile = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces) == profile
                continue
            }
            guard inProfile, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            values[key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return values
    }
}

/// An S3 content store that cannot be set up as configured; the message says what to change.
struct S3ConfigurationError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
