import Testing
@testable import notes_cli

@Suite("concurrentMap (export's rendering and writing on every core)")
struct ConcurrentMapTests {
    @Test("gives exactly map's results, in order, for any count, chunk size and number of threads",
          arguments: [0, 1, 63, 64, 65, 1000])
    func sameAsMap(count: Int) {
        let numbers = Array(0..<count)
        for parallelism in [1, 2, 4] {
            for chunkSize in [1, 7, 64] {
                let mapped = numbers.concurrentMap(parallelism: parallelism, chunkSize: chunkSize) { "\($0 * 3)" }
                #expect(mapped == numbers.map { "\($0 * 3)" }, "parallelism \(parallelism), chunks of \(chunkSize)")
            }
        }
    }
}
