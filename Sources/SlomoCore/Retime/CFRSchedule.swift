/// The constant-frame-rate output schedule of a retime: which source moment each output frame shows.
///
/// Output frame `n` (n = 0, 1, …) starts at target time `t = target.start + n / fps` and shows the
/// source at `s = map.sourceTime(forTarget: t)`. The source frame shown is the **last frame whose
/// presentation time is ≤ s** (a frame is on screen from its pts until the next one's), computed
/// exactly, so when `s` falls exactly on a frame's pts that frame is shown, never its predecessor.
/// Before the first frame, frame 0 is shown. The output has `ceil(targetDuration × fps)` frames: every
/// output frame starts inside the target range.
public struct CFRSchedule: Sendable {
    public let map: RetimeMap
    public let frameRate: Rational
    /// The part of the target timeline the output covers (`--start`/`--end`, mapped); the whole
    /// target range when nil. Output frame 0 starts at its start.
    public let window: TimeRange?

    public init(map: RetimeMap, frameRate: Rational, window: TimeRange? = nil) {
        precondition(frameRate.isPositive)
        self.map = map
        self.frameRate = frameRate
        self.window = window
    }

    /// The target range the output covers.
    public var covered: TimeRange { window ?? map.target }

    /// Number of output frames.
    public var frameCount: Int64 { (covered.duration * frameRate).ceiling }

    /// Output frame `n`'s start on the target timeline.
    public func targetTime(ofFrame n: Int64) -> Rational { covered.start + Rational(n) / frameRate }

    /// The source time output frame `n` shows.
    public func sourceTime(ofFrame n: Int64) -> Rational { map.sourceTime(forTarget: targetTime(ofFrame: n)) }

    /// Index into `sourceTimes` (sorted presentation times) of the frame that output frame `n` shows.
    public func sourceFrameIndex(ofFrame n: Int64, sourceTimes: [Rational]) -> Int {
        CFRSchedule.frameIndex(at: sourceTime(ofFrame: n), in: sourceTimes)
    }

    /// The last index whose time is ≤ `t` (0 when `t` is before every frame). `times` must be sorted.
    public static func frameIndex(at t: Rational, in times: [Rational]) -> Int {
        var lo = 0, hi = times.count - 1
        guard hi >= 0 else { return 0 }
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if times[mid] <= t { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// For a constant-rate source (frame k at `k / sourceFps`): the source frame of output frame `n`.
    public func sourceFrameIndex(ofFrame n: Int64, sourceFrameRate: Rational, sourceFrameCount: Int64) -> Int64 {
        let s = sourceTime(ofFrame: n)
        return Swift.min(Swift.max((s * sourceFrameRate).floor, 0), sourceFrameCount - 1)
    }
}
