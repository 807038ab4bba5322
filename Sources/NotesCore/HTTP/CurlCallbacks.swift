import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The C functions libcurl calls during a transfer. Each gets its `CurlTransfer` back from the
/// user pointer set with it; the multi handle keeps the transfer alive while libcurl may call.
enum CurlCallbacks {
    private static func transfer(_ user: UnsafeMutableRawPointer?) -> CurlTransfer? {
        user.map { Unmanaged<CurlTransfer>.fromOpaque($0).takeUnretainedValue() }
    }

    /// `CURLOPT_HEADERFUNCTION`: a short count stops the transfer.
    static let header: notes_curl_data_callback = { buffer, size, count, user in
        let length = size * count
        guard let transfer = CurlCallbacks.transfer(user) else { return 0 }
        return transfer.headerLine(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
    }

    /// `CURLOPT_WRITEFUNCTION`: a short count stops the transfer.
    static let write: notes_curl_data_callback = { buffer, size, count, user in
        let length = size * count
        guard let transfer = CurlCallbacks.transfer(user) else { return 0 }
        return transfer.bodyBytes(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
    }

    /// `CURLOPT_READFUNCTION`.
    static let read: notes_curl_data_callback = { buffer, size, count, user in
        guard let transfer = CurlCallbacks.transfer(user),
              let sent = transfer.requestBytes(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count)) else {
            return notes_curl_read_abort()
        }
        return sent
    }

    /// `CURLOPT_SEEKFUNCTION`: only ever from the start of the body (`SEEK_SET`).
    static let seek: notes_curl_seek_callback = { user, offset, origin in
        guard origin == SEEK_SET, let transfer = CurlCallbacks.transfer(user),
              transfer.rewind(to: Int64(offset)) else { return notes_curl_seek_fail() }
        return notes_curl_seek_ok()
    }
}
