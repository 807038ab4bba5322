import NotesCore

/// The body of `POST /v1/content` as it streams in: frames of `<hash> <size>\n` and then exactly
/// `size` bytes (`ContentBatch`), each content's bytes into a sink of its own
/// (`BlobStore.makeContentSink`, hashed as they arrive), so no content is ever held in memory.
///
/// A malformed body is recorded as `problem` and the rest of it dropped (the handler refuses the
/// request, and `discard` removes every content received): a batch is framed correctly or not
/// at all.
final class ContentBatchSink: RequestBodySink, @unchecked Sendable {
    // @unchecked: the server calls `write`/`discard` from the connection's thread only, and the
    // handler that reads `received` runs on that same thread after the last `write`.

    /// A content whose bytes all arrived, not yet checked.
    struct Received {
        let hash: String
        let size: Int
        let sink: any ChunkSink
    }

    private let makeSink: (String) throws(BlobStoreError) -> any ChunkSink
    /// The largest content one frame may carry.
    private let maxContentBytes: Int
    private var header: [UInt8] = []
    private var current: (hash: String, size: Int, sink: any ChunkSink, remaining: Int)?
    private(set) var received: [Received] = []
    /// Why the body is refused, once it is.
    private(set) var problem: HTTPError?

    init(maxContentBytes: Int, makeSink: @escaping (String) throws(BlobStoreError) -> any ChunkSink) {
        self.maxContentBytes = maxContentBytes
        self.makeSink = makeSink
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var rest = bytes[...]
        while !rest.isEmpty, problem == nil {
            if let content = current {
                let count = min(content.remaining, rest.count)
                guard content.sink.write(UnsafeRawBufferPointer(rebasing: rest.prefix(count))) else { return false }
                rest = rest.dropFirst(count)
                current?.remaining -= count
                if count == content.remaining { finishContent() }
                continue
            }
            let line = rest.prefix(while: { $0 != 0x0A })
            header += line
            rest = rest.dropFirst(line.count)
            guard header.count < ContentBatch.maxHeaderBytes else {
                return refuse("a frame's header is longer than a hash and a size")
            }
            guard !rest.isEmpty else { break }  // the header goes on in the next piece
            rest = rest.dropFirst()  // the newline
            guard let (hash, size) = ContentBatch.parseHeader(header) else {
                return refuse("a frame's header is not `<64 lowercase hex digits> <size>`")
            }
            header = []
            guard size <= maxContentBytes else {
                problem = HTTPError(413, code: "chunked_upload_required", message: "Content \(hash) is \(size) bytes: a batch "
                                    + "takes contents of at most \(maxContentBytes) bytes; send it with POST /v1/uploads.")
                return true
            }
            guard received.count < ContentBatch.maxContents else {
                return refuse("a batch holds at most \(ContentBatch.maxContents) contents")
            }
            do {
                current = (hash, size, try makeSink(hash), size)
            } catch {
                return false  // the store cannot take a file now: 507
            }
            if size == 0 { finishContent() }
        }
        return true
    }

    private func finishContent() {
        guard let content = current else { return }
        received.append(Received(hash: content.hash, size: content.size, sink: content.sink))
        current = nil
    }

    private func refuse(_ reason: String) -> Bool {
        problem = HTTPError(400, code: "invalid_batch", message: "The body is not a content batch: \(reason).")
        return true
    }

    /// Why the body as a whole is refused: a framing problem met while it streamed, or a body
    /// that ended inside a frame. Nil for a well-formed batch.
    func finish() -> HTTPError? {
        if let problem { return problem }
        if !header.isEmpty || current != nil { return HTTPError(400, code: "invalid_batch", message: "The body ended inside a frame.") }
        return nil
    }

    /// Removes every content received but not kept.
    func discard() {
        current?.sink.discard()
        current = nil
        for content in received { content.sink.discard() }
    }
}
