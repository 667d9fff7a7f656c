import SlomoCore

/// Export's frame choice, decided before anything is decoded: which source frame each constant-rate
/// output frame shows (`CFRSchedule`: the last frame at or before the mapped time), and which source
/// frames any output needs (with blending, also the frame after each shown one; with motion
/// interpolation, all). One byte and one tick count per source frame, not hash tables: an hour at
/// 30 fps is 108,000 frames, and memory must not grow with the input (Docs/Reliability.md).
struct ExportFramePlan {
    let schedule: CFRSchedule
    /// Source frame times on the timeline, sorted.
    let times: [Rational]
    /// Per output frame: the source frame it shows.
    let shown: [Int]
    /// Per source frame: some output frame needs it decoded.
    let needed: [Bool]
    private let timeline: MediaTimeline
    private let originTicks: Int64
    /// Per source frame: its pts in the stream's time base, sorted as `times`.
    private let frameTicks: [Int64]

    var total: Int64 { schedule.frameCount }

    init(timeline: MediaTimeline, map: RetimeMap, frameRate: Rational, blend: ExportRequest.FrameBlend, window: TimeRange? = nil) throws {
        self.timeline = timeline
        schedule = CFRSchedule(map: map, frameRate: frameRate, window: window)
        times = timeline.frameTimes
        let times = self.times
        let schedule = self.schedule
        shown = (0..<schedule.frameCount).map { schedule.sourceFrameIndex(ofFrame: $0, sourceTimes: times) }
        var needed = [Bool](repeating: blend == .motion, count: times.count)  // motion looks at neighbours
        for k in shown { needed[k] = true }
        if blend == .blend || blend == .flow { for k in shown where k + 1 < times.count { needed[k + 1] = true } }
        self.needed = needed
        let tb = timeline.info.timeBase
        let origin = try timeline.originTicks()
        originTicks = origin
        frameTicks = try times.map { origin + (try $0.ticks(in: tb, rounding: .nearest)) }
    }

    /// The source frame whose pts is exactly `p` (the last of equal ones), by binary search.
    func index(ofPTS p: Int64) -> Int? {
        var lo = 0, hi = frameTicks.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if frameTicks[mid] <= p { lo = mid + 1 } else { hi = mid }
        }
        return lo > 0 && frameTicks[lo - 1] == p ? lo - 1 : nil
    }

    /// The source frame a decoded frame stands for: its exact pts, else the frame at its time.
    func index(ofDecoded p: Int64) -> Int? {
        if let k = index(ofPTS: p) { return k }
        guard !times.isEmpty else { return nil }
        return CFRSchedule.frameIndex(at: timeline.time(ofTicks: p, originTicks: originTicks), in: times)
    }
}
