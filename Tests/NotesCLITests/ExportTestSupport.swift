import Foundation
import NotesTestSupport

/// Small file helpers for the export end-to-end tests.
enum ExportFixture {
    /// Writes `files` (relative path → text) under `root`, creating folders.
    static func write(_ files: [(String, String)], in root: URL) throws {
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }

    /// Every regular file under `root` (dot-files included), relative path → bytes.
    static func tree(_ root: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let base = root.resolvingSymlinksInPath().path
        guard let enumerator = FileManager.default.enumerator(atPath: base) else { return files }
        while let path = enumerator.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: base + "/" + path, isDirectory: &isFolder), !isFolder.boolValue {
                files[path] = FileManager.default.contents(atPath: base + "/" + path)
            }
        }
        return files
    }

    /// The text of the file at `path` under `root`, or "" when missing.
    static func text(_ path: String, in root: URL) -> String {
        FileManager.default.contents(atPath: root.appendingPathComponent(path).path).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The inode of `path` under `root`: an atomic rewrite (temp file, rename) changes it, so a
    /// test can tell "rewritten" from "left alone" without comparing clocks.
    static func inode(_ path: String, in root: URL) throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(path).path)
        return (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    }

    /// Runs the real `notes export --html OUT SOURCE EXTRA...`.
    static func export(_ source: URL, to output: URL, _ extra: [String] = []) async throws -> ProcessResult {
        try await ProcessRunner.run(BuiltProducts.client, ["export", "--html", output.path, source.path] + extra)
    }
}
