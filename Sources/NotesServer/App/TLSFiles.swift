import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The PEM certificate and key of `--tls-cert` and `--tls-key`, read before anything starts,
/// with a refusal that names the file and what is wrong with it in plain words.
struct TLSFiles {
    let certificatePEM: String
    let keyPEM: String

    /// Reads both files.
    /// - Throws: `TLSFileError` for a file that is missing, unreadable or not PEM.
    init(certificate: String, key: String) throws(TLSFileError) {
        certificatePEM = try Self.read(certificate, what: "TLS certificate", option: "--tls-cert")
        keyPEM = try Self.read(key, what: "TLS private key", option: "--tls-key")
    }

    private static func read(_ path: String, what: String, option: String) throws(TLSFileError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw TLSFileError("the \(what) \(path) (\(option)) does not exist")
        }
        guard !isDirectory.boolValue else { throw TLSFileError("the \(what) \(path) (\(option)) is a folder, not a PEM file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TLSFileError("cannot read the \(what) \(path) (\(option)): \(String(cString: strerror(errno)))")
        }
        guard let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN ") else {
            throw TLSFileError("the \(what) \(path) (\(option)) is not a PEM file (it has no -----BEGIN line)")
        }
        return text
    }
}

/// A `--tls-cert` or `--tls-key` file that cannot serve, in one sentence naming it.
struct TLSFileError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
