import Foundation

/// `curl` against an S3 API, signed with SigV4 (or not): what an operator's own tools do to a
/// bucket, for the tests that look into one or copy it.
public enum S3Curl {
    /// Runs `curl` with `arguments`, signed with `credentials` when given; the status and body.
    public static func run(_ arguments: [String], credentials: (id: String, secret: String)?) async throws -> (status: Int, body: String) {
        let signing = credentials.map { ["--aws-sigv4", "aws:amz:us-east-1:s3", "--user", "\($0.id):\($0.secret)",
                                         "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD"] } ?? []
        let result = try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/curl"),
                                                 ["-s", "-m", "10", "-w", "\n%{http_code}"] + signing + arguments)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// The keys under `prefix` in `bucket` (ListObjectsV2, first 1,000).
    public static func keys(endpoint: String, bucket: String, prefix: String, credentials: (id: String, secret: String)) async throws -> [String] {
        // Encoded here: curl signs the query as written, and SigV4 wants `/` as %2F.
        let encoded = prefix.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.~"))) ?? prefix
        let answer = try await run(["\(endpoint)/\(bucket)?list-type=2&prefix=\(encoded)"], credentials: credentials)
        var keys: [String] = []
        var rest = Substring(answer.body)
        while let start = rest.range(of: "<Key>"), let end = rest[start.upperBound...].range(of: "</Key>") {
            keys.append(String(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return keys
    }
}
