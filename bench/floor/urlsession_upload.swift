// The transport floor for bench/transport.sh: TOTAL MiB sent as PUTs of CHUNK MiB, IN_FLIGHT at a
// time, through one URLSession configured as the client's (ephemeral, a delegate on a serial
// queue), to a server that reads and drops every body. No file, no hashing, no JSON: the least
// any upload through URLSession costs.
//   delegate: answers streamed to the session's delegate, as the client takes them (the only
//             way FoundationNetworking lets a client bound an answer while it arrives);
//   handler:  a completion handler per request, which buffers the whole answer unbounded.
// Build: swiftc -O urlsession_upload.swift -o urlsession_upload
// Run:   urlsession_upload URL TOTAL_MIB CHUNK_MIB IN_FLIGHT delegate|handler   (exit 1 on a failed request)
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let arguments = CommandLine.arguments
guard arguments.count == 6, let url = URL(string: arguments[1]), let total = Int(arguments[2]), let chunk = Int(arguments[3]),
      let inFlight = Int(arguments[4]), chunk > 0, inFlight > 0, ["delegate", "handler"].contains(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: urlsession_upload URL TOTAL_MIB CHUNK_MIB IN_FLIGHT delegate|handler\n".utf8))
    exit(2)
}
let streamed = arguments[5] == "delegate"

/// Wakes whoever waits on a task when it completes, and remembers any failure.
final class Completions: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: [Int: DispatchSemaphore] = [:]
    private(set) var failures: [String] = []

    func watch(_ task: URLSessionTask) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        lock.withLock { waiting[task.taskIdentifier] = done }
        return done
    }

    func finished(status: Int?, error: (any Error)?) {
        guard error != nil || status != 200 else { return }
        lock.withLock { failures.append("status \(status.map(String.init) ?? "none"), error \(error.map { "\($0)" } ?? "none")") }
    }

    /// FoundationNetworking may report a failed connection to the delegate more than once per
    /// task: only the first report of a task counts.
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let done = lock.withLock({ waiting.removeValue(forKey: task.taskIdentifier) }) else { return }
        finished(status: (task.response as? HTTPURLResponse)?.statusCode, error: error)
        done.signal()
    }
}

let completions = Completions()
let queue = OperationQueue()
queue.maxConcurrentOperationCount = 1
let session = URLSession(configuration: .ephemeral, delegate: completions, delegateQueue: queue)
let body = Data(count: chunk << 20)
let slots = DispatchSemaphore(value: inFlight)
let all = DispatchGroup()
for _ in 0..<(total / chunk) {
    slots.wait()
    var request = URLRequest(url: url)
    request.httpMethod = "PUT"
    request.httpBody = body
    all.enter()
    if streamed {
        let task = session.dataTask(with: request)
        let done = completions.watch(task)
        DispatchQueue.global().async {
            done.wait()
            slots.signal()
            all.leave()
        }
        task.resume()
    } else {
        session.dataTask(with: request) { _, response, error in
            completions.finished(status: (response as? HTTPURLResponse)?.statusCode, error: error)
            slots.signal()
            all.leave()
        }.resume()
    }
}
all.wait()
if let failure = completions.failures.first {
    FileHandle.standardError.write(Data("\(completions.failures.count) request(s) failed, first: \(failure)\n".utf8))
    exit(1)
}
