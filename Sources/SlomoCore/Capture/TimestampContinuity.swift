/// Keeps a capture's timeline going forward when the driver's clock jumps back: a timestamp that
/// wrapped (a 64-bit nanosecond count past 2^63 becomes negative in a `timeval`; vivid's
/// `wrap_timestamp` does this on purpose) or a clock reset. A frame whose timestamp is not after
/// the one before is placed after it by the sequence numbers (one frame duration per sequence step),
/// and every later frame keeps that offset, so intervals stay true and the file's times increase.
/// A long forward gap is left alone: a camera that stops delivering for a while is real time.
public struct TimestampContinuity: Sendable {
    /// One jump: the frame it happened at (0-based, delivered frames), the driver's times around
    /// it, and the offset added from then on.
    public struct Jump: Sendable, Equatable, Codable {
        public var frame: Int64
        public var before: Rational
        public var after: Rational
        public var offset: Rational
    }

    public let frameDuration: Rational
    /// How the source numbers its frames (the steps a jump is placed by).
    public let counter: FrameCounter
    public private(set) var offset: Rational = .zero
    public private(set) var jumps: [Jump] = []
    private var last: (raw: Rational, mended: Rational, sequence: UInt64)?
    private var frames: Int64 = 0

    /// `frameDuration`: the mode's (what a frame after a jump is placed by); 1/30 s when unknown.
    public init(frameDuration: Rational?, counter: FrameCounter = .v4l2) {
        self.counter = counter
        self.frameDuration = frameDuration.flatMap { $0.isPositive ? $0 : nil } ?? Rational(1, 30)
    }

    /// The frame's time on the capture's timeline (the driver's, plus the offset of earlier jumps).
    public mutating func mend(_ raw: Rational, sequence: UInt64) -> Rational {
        defer { frames += 1 }
        var t = raw + offset
        if let l = last, raw <= l.raw {
            let step = counter.steps(from: l.sequence, to: sequence) ?? 1
            let steps = step >= 1 && step < 1 << 20 ? Int64(step) : 1
            t = l.mended + frameDuration * Rational(steps)
            offset = t - raw
            jumps.append(Jump(frame: frames, before: l.raw, after: raw, offset: offset))
        }
        last = (raw, t, sequence)
        return t
    }

    /// One sentence per jump, for the report's warnings.
    public var warnings: [String] {
        jumps.prefix(3).map { j in
            "the driver's timestamps went back from \(Seconds(j.before, decimals: 6)) s to \(Seconds(j.after, decimals: 6)) s at frame \(j.frame) "
                + "(a wrapped or reset clock): later frames are placed after the one before by their sequence numbers"
        } + (jumps.count > 3 ? ["\(jumps.count - 3) more timestamp jumps"] : [])
    }
}
