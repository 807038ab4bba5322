import Testing
@testable import notes_cli

/// The batch answer statuses sync tells apart; anything else is a refusal left for next time.
@Suite("Sync batch status")
struct SyncBatchStatusTests {
    @Test("each status sync acts on has its own case; every other one is a refusal that keeps its code")
    func statusesMapToTheirMeaning() {
        #expect(BatchStatus(httpStatus: 200) == .updated)
        #expect(BatchStatus(httpStatus: 201) == .created)
        #expect(BatchStatus(httpStatus: 412) == .stale)
        #expect(BatchStatus(httpStatus: 409) == .pathTaken)
        #expect(BatchStatus(httpStatus: 404) == .notFound)
        #expect(BatchStatus(httpStatus: 413) == .refused(413))
        #expect(BatchStatus(httpStatus: 500) == .refused(500))
    }
}
