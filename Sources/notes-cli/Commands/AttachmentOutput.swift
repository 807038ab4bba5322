import Foundation
import NotesCore

/// An attachment's bytes to stdout (`notes cat`), streamed range by range so a file of any size
/// costs one chunk of memory, and checked against its hash as it goes.
enum AttachmentOutput {
    /// Writes `attachment`'s content to stdout.
    /// - Returns: false (with a message on stderr) when stdout is a terminal: binary bytes
    ///   would steer it.
    /// - Throws: `ClientError.contentMismatch` when the bytes sent do not hash to the
    ///   attachment's hash (stdout then holds them, but the exit code says they are wrong).
    static func write(_ attachment: NoteResource, with client: APIClient, _ terminal: Terminal) async throws -> Bool {
        try await write(path: attachment.path, hash: attachment.hash, size: attachment.size, with: client, terminal)
    }

    /// Writes the content `hash` (`size` bytes) of the attachment at `path` to stdout.
    static func write(path: String, hash: String, size: Int, with client: APIClient, _ terminal: Terminal) async throws -> Bool {
        guard !terminal.stdoutIsTTY else {
            terminal.printError("notes cat: \(Terminal.printable(path)) is an attachment of \(size) bytes; "
                                + "redirect the output to a file or a pipe")
            return false
        }
        guard ContentHash.isValid(hash), size >= 0 else {
            throw ClientError.protocolViolation("the server listed \(Terminal.printable(path)) with an invalid hash or size")
        }
        let remote = APISyncRemote(client: client)
        let chunk = AttachmentLimits(await client.fetchLimits()).chunkBytes
        let total = Int64(size)
        var hasher = SHA256Hasher()
        var offset: Int64 = 0
        repeat {
            let length = Int(min(Int64(chunk), total - offset))
            let bytes = try await remote.content(hash: hash, offset: offset, length: length, total: total)
            hasher.update(bytes)
            FileHandle.standardOutput.write(bytes)
            offset += Int64(length)
        } while offset < total
        guard Hex.encode(hasher.finalize()) == hash else { throw ClientError.contentMismatch(path: path) }
        return true
    }
}
