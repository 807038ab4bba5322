import Foundation

extension ScriptedHTTPServer.Reply {
    /// Passes `request` on to the server on `127.0.0.1:port` and sends back the head and the
    /// first `bodyBytes` bytes of the body of its answer, then runs `then` (which may wait for
    /// the test) and closes the connection: a download cut off midway, at a known byte, with
    /// no timing involved. An answer that never came is dropped whole.
    public static func forwardingPart(of request: ScriptedHTTPServer.Request, toPort port: Int, bodyBytes: Int,
                                      then: @escaping @Sendable () -> Void = {}) -> ScriptedHTTPServer.Reply {
        .raw { socket in
            guard let answer = HTTPWire.forward(request, toPort: port),
                  let headEnd = answer.range(of: Data("\r\n\r\n".utf8)) else { return }
            let end = min(answer.count, headEnd.upperBound + bodyBytes)
            _ = HTTPWire.sendAll(answer.subdata(in: answer.startIndex..<end), to: socket)
            then()
        }
    }
}
