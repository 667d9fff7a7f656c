/// How a camera numbers its frames, so that a gap counts the frames it lost and a wrap never counts
/// as one. Numbers run from `first` to `last` and start again at `first`:
/// - V4L2's buffer sequence: 0…2³²−1, then 0;
/// - GigE Vision 1.x block ids: 1…65535, then 1 (0 is never used);
/// - GigE Vision 2 and USB3 Vision: 64 bits.
public struct FrameCounter: Sendable, Equatable {
    public var first: UInt64
    public var last: UInt64
    public init(first: UInt64, last: UInt64) {
        precondition(last > first)
        self.first = first
        self.last = last
    }

    public static let v4l2 = FrameCounter(first: 0, last: UInt64(UInt32.max))
    public static let gigEVision16 = FrameCounter(first: 1, last: 65535)
    public static let wide = FrameCounter(first: 0, last: UInt64.max)

    /// The steps from number `a` to number `b` going forward (through a wrap): 1 for the next
    /// frame, 0 for a repeated number. Nil when `b` lies behind `a` (more than half the cycle ahead
    /// means a reset or a reorder, never that many frames lost).
    /// A number outside `first…last` (a GigE Vision frame id 0, which the protocol never uses)
    /// is no step at all: nil.
    public func steps(from a: UInt64, to b: UInt64) -> UInt64? {
        guard contains(a), contains(b) else { return nil }
        let d = b >= a ? b - a : (last - a) + (b - first) + 1
        return d < (last - first) / 2 + 1 ? d : nil
    }

    public func contains(_ n: UInt64) -> Bool { n >= first && n <= last }

    /// The number `n` frames after `a` (through a wrap).
    public func advanced(_ a: UInt64, by n: UInt64) -> UInt64 {
        let cycle = last - first  // one less than the cycle's length (which may be 2^64)
        let k = cycle == UInt64.max ? n : n % (cycle + 1)
        let room = last - a  // steps before the wrap
        return k <= room ? a + k : first + (k - room - 1)
    }

    /// The frames lost between `a` and the next frame `b`: 0 when consecutive, repeated or behind.
    public func lost(from a: UInt64, to b: UInt64) -> UInt64 {
        guard let d = steps(from: a, to: b), d > 1 else { return 0 }
        return d - 1
    }
}

/// Why a frame a camera delivered is not stored as good: counted in the report, never written.
public enum FrameDamage: Sendable, Equatable {
    /// The driver marked the buffer damaged (V4L2_BUF_FLAG_ERROR).
    case flagged
    /// Packets of the frame never arrived (GigE Vision: missing packets after resends).
    case incomplete(missingPackets: Int)
    /// The frame's size differs from what the format needs.
    case sizeMismatch(expected: Int, got: Int)
}
