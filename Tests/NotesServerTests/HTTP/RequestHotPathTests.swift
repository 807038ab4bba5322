import NotesTestSupport
import Testing
@testable import NotesServer

/// The per-request text handling that was rewritten to read bytes in place (the bearer header,
/// the request id, the method, the log line) answers exactly what the plain versions answered.
@Suite("HTTP: per-request text, read in place")
struct RequestHotPathTests {
    /// What `bearerSecret` answered before it read the header in place: the header split into
    /// words, the first compared lowercased. The oracle the in-place reading must agree with.
    private static func splitReading(_ headers: HTTPHeaders) -> Result<String, HTTPError> {
        let values = headers.values(for: "Authorization")
        guard let header = values.first else { return .failure(.unauthenticated()) }
        guard values.count == 1 else { return .failure(.invalidRequest("Send one Authorization header, not several.")) }
        let parts = header.utf8.split(separator: UInt8(ascii: " ")).map { Substring($0) }
        guard let scheme = parts.first, scheme.lowercased() == "bearer" else { return .failure(.unauthenticated()) }
        let token = parts.count == 2 ? parts[1].utf8.reversed().drop { $0 == UInt8(ascii: "=") } : []
        guard parts.count == 2, !token.isEmpty, token.allSatisfy({ byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-._~+/".utf8.contains(byte)
        }) else {
            return .failure(.invalidRequest("The Authorization header must be `Bearer <token>`."))
        }
        return .success(String(parts[1]))
    }

    private static func inPlaceReading(_ headers: HTTPHeaders) -> Result<String, HTTPError> {
        Result { () throws(HTTPError) in try TokenAuthenticator.bearerSecret(in: headers) }
    }

    @Test("the bearer secret is the one word after the scheme, in any letter case and spacing",
          arguments: [
              ("Bearer nat_abc", "nat_abc"), ("bearer nat_abc", "nat_abc"), ("BEARER   nat_abc  ", "nat_abc"),
              ("  Bearer nat_abc", "nat_abc"), ("Bearer abc==", "abc=="), ("Bearer a-b.c_d~e+f/g", "a-b.c_d~e+f/g"),
          ])
    func bearerSecretAccepted(header: String, secret: String) throws {
        #expect(try TokenAuthenticator.bearerSecret(in: ["Authorization": header]) == secret)
    }

    @Test("a header that is not one Bearer word is refused as before: 401 for another scheme, 400 for a malformed one",
          arguments: [
              ("", 401), ("   ", 401), ("Basic YWxpY2U6c2VjcmV0", 401), ("Bearerx abc", 401), ("Béarer abc", 401),
              ("Bearer", 400), ("Bearer   ", 400), ("Bearer one two", 400), ("Bearer a\tb", 400), ("Bearer ==", 400),
              ("Bearer nat_<script>", 400), ("Bearer tök", 400),
          ])
    func bearerSecretRefused(header: String, status: Int) {
        let answer = Self.inPlaceReading(["Authorization": header])
        #expect(answer == Self.splitReading(["Authorization": header]))
        guard case .failure(let error) = answer else {
            Issue.record("accepted \(header)")
            return
        }
        #expect(error.status == status)
    }

    @Test("no Authorization header is 401, two are 400, whatever their content")
    func bearerSecretHeaderCount() {
        #expect(Self.inPlaceReading(["Host": "t"]) == .failure(.unauthenticated()))
        var twice: HTTPHeaders = ["Authorization": "Bearer a"]
        twice.add(name: "authorization", value: "Bearer b")
        #expect(Self.inPlaceReading(twice) == Self.splitReading(twice))
        guard case .failure(let error) = Self.inPlaceReading(twice) else {
            Issue.record("two Authorization headers were accepted")
            return
        }
        #expect(error.status == 400)
    }

    @Test("on random headers built from the characters that matter, the in-place reading agrees with the split one")
    func bearerSecretAgreesWithSplitReading() {
        var random = SeededRandom(seed: 12)
        let pieces = ["Bearer", "bearer", "BeArEr", "Basic", " ", "  ", "\t", "a", "Z9", "=", "==", "-._~+/", "é", "<", ""]
        for _ in 0..<5_000 {
            let header = (0..<Int.random(in: 0...5, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let headers: HTTPHeaders = ["Authorization": header]
            #expect(Self.inPlaceReading(headers) == Self.splitReading(headers), "header \(header.debugDescription)")
        }
    }

    @Test("a path's route segments are every piece after the first one split at `/`, empty pieces included")
    func routeSegments() {
        var random = SeededRandom(seed: 1212)
        let pieces = ["/", "//", "v1", "notes", "é", "\u{301}", "a b", ""]
        var paths = ["", "/", "//", "/v1/notes/x", "/v1/notes/", "abc", "abc/d", "/\u{301}x/y"]
        for _ in 0..<2_000 {
            paths.append((0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined())
        }
        for path in paths {
            let split = path == "/" ? [] : path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst().map { Substring($0) }
            #expect(RoutePattern.segments(of: path).map(String.init) == split.map(String.init), "path \(path.debugDescription)")
        }
    }

    @Test("request ids are 16 lowercase hex digits, distinct, sharing this process's random half")
    func requestIDs() {
        let ids = (0..<1_000).map { _ in RequestID.make() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            #expect(id.utf8.count == 16)
            #expect(id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            #expect(id.prefix(8) == ids[0].prefix(8))
        }
    }

    @Test("a method is upper-cased, and one already upper-case is kept as sent")
    func methods() {
        #expect(HTTPServer.uppercasedMethod("GET") == "GET")
        #expect(HTTPServer.uppercasedMethod("get") == "GET")
        #expect(HTTPServer.uppercasedMethod("Patch") == "PATCH")
        #expect(HTTPServer.uppercasedMethod("M-SEARCH") == "M-SEARCH")
        #expect(HTTPServer.uppercasedMethod("") == "")
    }

    @Test("the request log line is id, method, escaped path, status and elapsed milliseconds with two decimals")
    func logLine() throws {
        let state = RequestState(id: "00000000000000ab", connection: OpaquePointer(bitPattern: 1)!)
        state.method = "GET"
        state.path = "/v1/notes/a b"
        let line = state.logLine(status: 200)
        let prefix = "req=00000000000000ab GET /v1/notes/a%20b 200 "
        #expect(line.hasPrefix(prefix))
        #expect(line.hasSuffix("ms"))
        let elapsed = line.dropFirst(prefix.count).dropLast(2)
        let parts = elapsed.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 2 && parts[1].count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) })
        state.path = "/p/secret-token/a.png"
        #expect(state.logLine(status: 499).hasPrefix("req=00000000000000ab GET /p/<token>/a.png 499 "))
        // The milliseconds: a request that started 1,234.5 ms ago and one that started just now.
        let old = RequestState(id: "00000000000000ac", connection: OpaquePointer(bitPattern: 1)!,
                               started: .now - .microseconds(1_234_567))
        old.method = "PUT"
        old.path = "/v1/notes/x"
        let slow = old.logLine(status: 201)
        #expect(slow.hasPrefix("req=00000000000000ac PUT /v1/notes/x 201 1234.") || slow.hasPrefix("req=00000000000000ac PUT /v1/notes/x 201 1235."),
                "\(slow)")
        #expect(slow.wholeMatch(of: /req=00000000000000ac PUT \/v1\/notes\/x 201 \d+\.\d{2}ms/) != nil, "\(slow)")
        let quick = RequestState(id: "00000000000000ad", connection: OpaquePointer(bitPattern: 1)!, started: .now + .seconds(1))
        #expect(quick.logLine(status: 204).hasSuffix(" 204 0.00ms"), "a clock that went back logs no negative time")
    }
}
