import Foundation
import Synchronization

/// The next page of the changes feed, asked for as soon as the page before it arrived, before
/// that one is decoded and checked: the server reads and encodes page N+1 while the client
/// decodes page N (and the engine writes page N-1), instead of after.
///
/// Only an answer to exactly the request a caller makes is ever handed out (the same cursor,
/// limit and content flag), so where the cursor was found cannot matter: a guess that is wrong
/// costs one unused read-only request and nothing else. The page is decoded and checked
/// (`FeedProgress`, the hashes, the account) when it is taken, in the caller's order, as any.
/// One page is held at most; a newer look-ahead replaces (and cancels) an older one, and the
/// owner (`APISyncRemote`, one per sync) cancels what is left when it goes.
final class ChangesLookahead: Sendable {
    /// What a changes request asks for.
    struct Key: Equatable, Sendable {
        var since: String?
        var limit: Int
        var includeContent: Bool
    }

    private struct Pending: Sendable {
        var key: Key
        var answer: Task<HTTPResponse, any Error>
    }

    private let pending = Mutex<Pending?>(nil)

    /// The answer asked for ahead for `key`, if any (handed out once).
    func take(_ key: Key) -> Task<HTTPResponse, any Error>? {
        pending.withLock { pending in
            guard let held = pending, held.key == key else { return nil }
            pending = nil
            return held.answer
        }
    }

    /// Holds `answer`, the request for `key` already sent.
    func hold(_ key: Key, _ answer: Task<HTTPResponse, any Error>) {
        let replaced = pending.withLock { pending in
            let old = pending?.answer
            pending = Pending(key: key, answer: answer)
            return old
        }
        replaced?.cancel()
    }

    deinit {
        pending.withLock { $0?.answer.cancel() }
    }

    /// The cursor of the page after the one in `body`, when `body` says there is one: found in
    /// the envelope after the notes (`…],"cursor":"…","has_more":true,…}`), without decoding
    /// the page. Nil when the tail does not read so plainly (another server's layout): then the
    /// next page is asked for only once this one is decoded.
    static func nextCursor(in body: Data) -> String? {
        let tailLength = min(body.count, 512)
        let tail = [UInt8](body.suffix(tailLength))
        let cursorKey = Array(#""cursor":""#.utf8)
        guard let keyStart = lastRange(of: cursorKey, in: tail) else { return nil }
        let valueStart = keyStart + cursorKey.count
        guard let valueEnd = tail[valueStart...].firstIndex(of: UInt8(ascii: "\"")), valueEnd > valueStart,
              valueEnd - valueStart <= 128,
              tail[valueStart..<valueEnd].allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") })
        else { return nil }
        guard lastRange(of: Array(#""has_more":true"#.utf8), in: tail).map({ $0 > valueEnd }) == true else { return nil }
        return String(decoding: tail[valueStart..<valueEnd], as: UTF8.self)
    }

    private static func lastRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var start = haystack.count - needle.count
        while start >= 0 {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return start }
            start -= 1
        }
        return nil
    }
}
