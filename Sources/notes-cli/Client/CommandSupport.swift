import Foundation
import NotesCore

/// Small pieces every remote command shares: the `--server` option, `--json` output.
enum CommandSupport {
    /// The help text for the options every remote command accepts.
    static let serverHelp = """
          --server URL     The server to use (default: NOTES_SERVER, else the one you signed in to)
        """

    /// Writes `value` to stdout as pretty-printed wire JSON (snake_case keys, sorted).
    static func printJSON<T: Encodable>(_ value: T, _ terminal: Terminal) throws {
        let encoder = WireJSON.encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        let data = try encoder.encode(value)
        terminal.print(String(decoding: data, as: UTF8.self))
    }

    /// The authenticated client for the command's `--server` and the environment.
    static func client(server: String?, _ terminal: Terminal) throws -> APIClient {
        try ClientFactory(environment: terminal.environment).client(server: server)
    }
}
