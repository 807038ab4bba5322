import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

#if canImport(Glibc)
import Glibc
#endif

/// Sending WebDAV requests to the in-process application through the server's own responder
/// (`SiteResponder`), as the HTTP layer does: the head is offered for its body first, a
/// streamed body is written to the sink it chose, and an answer sent from a file is read back.
extension TestApp {
    /// `Authorization: Basic` for `username` and `secret`.
    static func basic(_ username: String, _ secret: String) -> String {
        "Basic " + Data("\(username):\(secret)".utf8).base64EncodedString()
    }

    /// One WebDAV request; `authorization` is the whole header value.
    func dav(_ method: String, _ path: String, body: String = "", bytes: [UInt8]? = nil, authorization: String?,
             headers extra: [String: String] = [:], from address: String = "127.0.0.1") async -> TestAPIResponse {
        let payload = bytes ?? Array(body.utf8)
        var headers = HTTPHeaders()
        if let authorization { headers.add(name: "Authorization", value: authorization) }
        headers.add(name: "Host", value: "notes.test")
        if !payload.isEmpty { headers.add(name: "Content-Length", value: "\(payload.count)") }
        for (name, value) in extra { headers.add(name: name, value: value) }
        let head = HTTPRequest(method: method, path: path, headers: headers, remoteAddress: address)
        let responder = application.responder
        var sink: (any RequestBodySink)?
        if !payload.isEmpty {
            switch responder.admitBody(of: head) {
            case .refuse(let error):
                return Self.answer(responder.refusal(error, for: head))
            case .accept(let maxBytes):
                if payload.count > maxBytes { return Self.answer(responder.refusal(.payloadTooLarge(limit: maxBytes), for: head)) }
            case .stream(let chosen, let maxBytes):
                if payload.count > maxBytes { return Self.answer(responder.refusal(.payloadTooLarge(limit: maxBytes), for: head)) }
                _ = payload.withUnsafeBytes { chosen.write($0) }
                sink = chosen
            }
        }
        let request = HTTPRequest(method: method, path: path, headers: headers, body: sink == nil ? payload : [], bodySink: sink,
                                  remoteAddress: address)
        let response: HTTPResponse
        switch responder.respond(to: request) {
        case .now(let answer): response = answer
        case .later(let work): response = await work()
        }
        sink?.discard()
        return Self.answer(response)
    }

    /// The response as a test reads it, a file body read back whole.
    static func answer(_ response: HTTPResponse) -> TestAPIResponse {
        var names: [String: String] = [:]
        for (name, value) in response.headers { names[name.lowercased()] = value }
        var body = Data(response.body)
        if let file = response.file, let fd = file.take() {
            var bytes = [UInt8](repeating: 0, count: Int(file.length))
            let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, Int(file.length), off_t(file.offset)) }
            _ = Glibc.close(fd)
            body = Data(bytes.prefix(max(0, read)))
            names["x-test-sent-from-file"] = "yes"
        }
        return TestAPIResponse(status: response.status, headers: names, body: body)
    }

    /// A personal token of `TestAccount` with `scope`, as Basic credentials.
    func davCredentials(scope: TokenScope = .write, name: String = "dav") async throws -> (authorization: String, token: PersonalTokenResource) {
        let session = try await signIn().accessToken
        let token = try await createToken(name, scope: scope, using: session)
        return (Self.basic(TestAccount.username, token.token ?? ""), token)
    }
}

extension TestAPIResponse {
    /// Every `<D:href>` of a multistatus body, in order.
    var hrefs: [String] {
        text.components(separatedBy: "<D:href>").dropFirst().compactMap { $0.components(separatedBy: "</D:href>").first }
    }
}
