import Foundation

/// A fresh directory under the system temp folder, removed by `remove()` (call it in `defer`).
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init(_ label: String = "notes-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public var path: String { url.path }

    public func appending(_ component: String) -> URL { url.appendingPathComponent(component) }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a fresh temporary directory that is removed afterwards.
public func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) async throws -> T) async throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    return try await body(directory)
}
