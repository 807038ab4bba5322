import Foundation

/// Where `swift build` put the real `notes-server` and `notes` binaries that end-to-end tests run.
public enum BuiltProducts {
    /// The build folder: the one holding the running test bundle (`.build/<triple>/debug`).
    public static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["NOTES_BUILD_DIR"] {
            return URL(fileURLWithPath: override)
        }
        var url = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
        // The test runner is `<build>/NotesPackageTests.xctest` (or a helper inside it).
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("notes-server").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug")
    }()

    public static var server: URL { directory.appendingPathComponent("notes-server") }
    public static var client: URL { directory.appendingPathComponent("notes") }
}
