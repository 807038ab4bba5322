import Foundation
import NotesCore

/// `POST /v1/content/missing` and `GET /v1/content/{hash}`: which contents a user's store lacks
/// (holding the others for the batch that relies on them), and a content's bytes by hash.
struct ContentController: Sendable {
    let contents: ContentStore

    func register(in router: inout Router) {
        router.add("POST", "/v1/content/missing", access: .write) { try .now(missing($0)) }
        router.add("GET", "/v1/content/:hash", access: .read) { try .now(download($0)) }
    }

    private func missing(_ context: RequestContext) throws -> HTTPResponse {
        let user = try context.caller().userID
        let request = try WireJSONReading.decode(ContentMissingRequest.self, from: Data(context.request.body))
            ?? context.decode(ContentMissingRequest.self)
        guard request.hashes.count <= ContentMissingRequest.maxHashes else {
            throw HTTPError(413, code: "too_many_hashes", message: "Ask about at most \(ContentMissingRequest.maxHashes) hashes at once.")
        }
        guard request.hashes.allSatisfy(ContentHash.isValid) else { throw HTTPError.invalidHash }
        return .wire(ContentMissingResponse(missing: try contents.missing(userID: user, hashes: request.hashes)))
    }

    private func download(_ context: RequestContext) throws -> HTTPResponse {
        let user = try context.caller().userID
        let hash = try context.contentHash()
        guard let file = try Self.mappingStoreFailures({ try contents.open(userID: user, hash: hash) }) else {
            throw HTTPError.contentNotFound
        }
        return ContentResponse.make(file, hash: hash, contentType: MediaType.octetStream.value,
                                    disposition: ContentResponse.disposition(inline: false, fileName: hash), request: context.request)
    }

    /// Runs `body`, answering a full content store with 507 (other failures stay 500s).
    static func mappingStoreFailures<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as BlobStoreError {
            guard let answer = HTTPError(blobStoreFailure: error) else { throw error }
            throw answer
        }
    }
}
