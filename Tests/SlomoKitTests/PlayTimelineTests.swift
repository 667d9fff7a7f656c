import Testing
import SlomoCore
@testable import SlomoKit

/// Play's live timeline on its own: pieces appended by rate changes keep every written frame's
/// output time, and a frame's time follows its piece's rate exactly.
@Suite struct PlayTimelineTests {
    @Test func ratePiecesMapSourceToOutputExactly() {
        var live = PlayTimeline(start: Rational(1), rate: Rational(1, 2))
        #expect(live.outTime(Rational(1)) == .zero)
        #expect(live.outTime(Rational(2)) == Rational(2))  // 1 s of source at 1/2
        // at output 2 s (source 2 s) the rate becomes 2: 1 s more of source takes 1/2 s
        live.pieces.append((Rational(2), live.outTime(Rational(2)), Rational(2)))
        #expect(live.outTime(Rational(3)) == Rational(5, 2))
        #expect(live.outTime(Rational(3, 2)) == Rational(1), "earlier frames keep their times")
        #expect(live.sourceTime(atOutput: Rational(5, 2)) == Rational(3))
        #expect(live.rate == Rational(2) && live.t0 == Rational(2) && live.s0 == Rational(2))
    }

    @Test func theClockStopsWhilePaused() {
        var clock = PlayClock()
        clock.pause()
        let a = clock.now()
        #expect(clock.paused && clock.now() == a)
        clock.resume()
        #expect(!clock.paused && clock.now() >= a)
    }
}
