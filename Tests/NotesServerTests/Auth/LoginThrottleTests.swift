import Testing
@testable import NotesServer

@Suite("LoginThrottle: the spacing between attempts on one account")
struct LoginThrottleTests {
    @Test("the spacing is none for 20 attempts, then doubles from 1 s and never passes 30 s")
    func spacingIsBounded() {
        let throttle = LoginThrottle(limits: .init(), clock: TestClock().serverClock)
        #expect((0..<20).allSatisfy { throttle.spacing(afterAttempts: $0) == 0 })
        #expect((20...26).map { throttle.spacing(afterAttempts: $0) } == [1000, 2000, 4000, 8000, 16000, 30000, 30000])
        #expect(throttle.spacing(afterAttempts: 1_000_000) == 30000)
    }

    @Test("past the threshold, a burst of attempts at one instant from many addresses lets exactly one through")
    func burstLetsOneThrough() throws {
        let clock = TestClock()
        let throttle = LoginThrottle(limits: .init(), clock: clock.serverClock)
        for index in 0..<20 {
            _ = try throttle.begin(username: "alice", address: "10.0.0.\(index)")
        }
        clock.advance(seconds: 1)
        let admitted = (0..<10).filter { index in (try? throttle.begin(username: "Alice", address: "10.0.1.\(index)")) != nil }
        #expect(admitted.count == 1, "attempts count when they start, before any password is checked")
    }
}
