import Foundation

extension ScriptedHTTPServer.Reply {
    /// Passes `request` on to the server on `127.0.0.1:port` and sends back its answer with the
    /// body changed by `alter` (and `Content-Length` set to the new body's length): a server that
    /// answers the wrong bytes, or more of them than were asked for. An answer that never came
    /// is dropped whole.
    public static func forwardingAltered(of request: ScriptedHTTPServer.Request, toPort port: Int,
                                         alter: @escaping @Sendable (inout Data) -> Void) -> ScriptedHTTPServer.Reply {
        .raw { socket in
            guard let answer = HTTPWire.forward(request, toPort: port),
                  let headEnd = answer.range(of: Data("\r\n\r\n".utf8)),
                  let head = String(data: answer.subdata(in: answer.startIndex..<headEnd.lowerBound), encoding: .utf8) else { return }
            var body = answer.subdata(in: headEnd.upperBound..<answer.endIndex)
            alter(&body)
            let lines = head.components(separatedBy: "\r\n").filter { !$0.lowercased().hasPrefix("content-length:") }
            var altered = Data((lines + ["Content-Length: \(body.count)", "", ""]).joined(separator: "\r\n").utf8)
            altered.append(body)
            _ = HTTPWire.sendAll(altered, to: socket)
        }
    }
}
