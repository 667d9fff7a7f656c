import Testing
@testable import SlomoCore

/// How frame numbers wrap decides what counts as a drop.
@Suite struct FrameCounterTests {
    @Test func v4l2SequencesWrapAt32Bits() {
        let c = FrameCounter.v4l2
        #expect(c.steps(from: 5, to: 6) == 1 && c.lost(from: 5, to: 9) == 3)
        #expect(c.lost(from: UInt64(UInt32.max), to: 0) == 0)  // the wrap itself
        #expect(c.lost(from: UInt64(UInt32.max) - 1, to: 1) == 2)
        #expect(c.steps(from: 9, to: 5) == nil && c.lost(from: 9, to: 5) == 0)  // behind: a reset, no drop
        #expect(c.steps(from: 7, to: 7) == 0)
    }

    @Test func gigEVision16BitIdsSkipZero() {
        let c = FrameCounter.gigEVision16
        #expect(c.lost(from: 65535, to: 1) == 0)  // 65535 → 1 is the next frame
        #expect(c.lost(from: 65534, to: 2) == 2)  // 65535 and 1 lost
        #expect(c.advanced(65535, by: 1) == 1 && c.advanced(65530, by: 10) == 5 && c.advanced(3, by: 65535) == 3)
    }

    /// A GigE Vision frame whose leader was lost comes with id 0, which the protocol never uses
    /// (and a camera may send anything): no step, no drop, no trap (it overflowed once).
    @Test func aNumberOutsideTheCounterIsNoStep() {
        let c = FrameCounter.gigEVision16
        #expect(c.steps(from: 100, to: 0) == nil && c.lost(from: 100, to: 0) == 0)
        #expect(c.steps(from: 0, to: 5) == nil && c.lost(from: 0, to: 5) == 0)
        #expect(c.lost(from: 65535, to: 70_000) == 0 && !c.contains(0) && c.contains(65535))
    }

    @Test func wideIdsNeverWrapInPractice() {
        let c = FrameCounter.wide
        #expect(c.lost(from: 1 << 40, to: (1 << 40) + 4) == 3)
        #expect(c.lost(from: UInt64.max, to: 0) == 0 && c.advanced(UInt64.max, by: 2) == 1)
    }
}
