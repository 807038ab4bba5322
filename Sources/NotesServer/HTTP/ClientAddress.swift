#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as bytes (4 or 16), parsed from text; IPv4-mapped IPv6 becomes IPv4.
struct IPAddress: Sendable, Equatable {
    let bytes: [UInt8]

    /// Parses `1.2.3.4`, `::1`, `[::1]`; nil for anything else (names, ports, garbage).
    init?(_ rawText: some StringProtocol) {
        var text = String(rawText)
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        if inet_pton(AF_INET, text, &ipv4) == 1 {
            bytes = withUnsafeBytes(of: &ipv4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &ipv6) == 1 {
            let raw = withUnsafeBytes(of: &ipv6) { Array($0) }
            let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
            bytes = Array(raw[0..<12]) == mappedPrefix ? Array(raw[12..<16]) : raw
        } else {
            return nil
        }
    }

    /// The canonical text (`inet_ntop`), so two spellings of one address are one rate-limit key.
    var text: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var raw = bytes
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard inet_ntop(family, &raw, &buffer, socklen_t(buffer.count)) != nil else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A CIDR range such as `10.0.0.0/8` or `fd00::/8`, as given to `--trusted-proxy`.
struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    let network: IPAddress
    let prefixLength: Int

    /// Parses `ADDRESS/BITS` or a bare address (a single host); nil when malformed, when the
    /// prefix is longer than the address, or when bits are set past the prefix (`10.0.0.1/8`
    /// is almost always a typo for a host or for `10.0.0.0/8`, so it is refused, not guessed).
    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let bits = address.bytes.count * 8
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let length = Int(parts[1]), length <= bits else { return nil }
            prefixLength = length
        } else {
            prefixLength = bits
        }
        network = address
        for bit in prefixLength..<bits where address.bytes[bit / 8] & (0x80 >> UInt8(bit % 8)) != 0 {
            return nil
        }
    }

    /// Whether `address` lies inside the range (an IPv4 address never matches an IPv6 range).
    func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(network.bytes, address.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if mine & mask != theirs & mask { return false }
            remaining -= 8
        }
        return true
    }

    var description: String { "\(network.text)/\(prefixLength)" }
}

/// Decides which address a request comes from, behind trusted reverse proxies or not.
enum ClientAddress {
    /// The client's address: the peer itself, unless the peer is a trusted proxy; then the
    /// rightmost `X-Forwarded-For` entry that is not itself a trusted proxy.
    ///
    /// Rightmost, because every proxy appends the address it saw, and only the entries our own
    /// proxies appended can be believed: anything to the left of the first untrusted hop was
    /// written by the client and may be forged. An entry that is not an IP address ends the walk
    /// at the last hop that could be verified. When every hop is trusted, the leftmost is taken.
    /// - Parameters:
    ///   - peer: the TCP peer as text (`MHDInfo.clientAddress`).
    ///   - forwardedFor: every `X-Forwarded-For` header value, in the order received.
    ///   - trusted: the `--trusted-proxy` ranges; empty means the header is ignored.
    static func resolve(peer: String, forwardedFor: [String], trusted: [AddressRange]) -> String {
        guard !trusted.isEmpty, !forwardedFor.isEmpty, let peerAddress = IPAddress(peer),
              isTrusted(peerAddress, trusted) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmedOf(" \t") }
        var closest = peerAddress
        for hop in hops.reversed() {
            guard let address = IPAddress(stripPort(hop)) else { return closest.text }
            if !isTrusted(address, trusted) { return address.text }
            closest = address
        }
        return closest.text
    }

    /// Whether a trusted proxy says the client reached it over HTTPS: the TCP peer is a trusted
    /// proxy and the last `X-Forwarded-Proto` value (the one that proxy set) is `https`.
    /// From anyone else the header is ignored, since a client could send it.
    static func forwardedHTTPS(peer: String, forwardedProto: [String], trusted: [AddressRange]) -> Bool {
        guard !trusted.isEmpty, let peerAddress = IPAddress(peer), isTrusted(peerAddress, trusted),
              let last = forwardedProto.flatMap({ $0.split(separator: ",") }).last else { return false }
        return last.trimmedOf(" \t").lowercased() == "https"
    }

    private static func isTrusted(_ address: IPAddress, _ trusted: [AddressRange]) -> Bool {
        trusted.contains { $0.contains(address) }
    }

    /// `1.2.3.4:5678` and `[::1]:5678` lose their port (some proxies add one); bare IPv6 stays.
    private static func stripPort(_ hop: String) -> String {
        if hop.hasPrefix("["), let close = hop.firstIndex(of: "]") {
            return String(hop[hop.index(after: hop.startIndex)..<close])
        }
        if hop.utf8.filter({ $0 == UInt8(ascii: ":") }).count == 1, let colon = hop.firstIndex(of: ":") {
            return String(hop[..<colon])
        }
        return hop
    }
}

private extension StringProtocol {
    func trimmedOf(_ set: String) -> String {
        let isTrimmed: (Character) -> Bool = { set.contains($0) }
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
