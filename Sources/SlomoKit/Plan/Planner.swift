import Foundation
import SlomoCore
import SlomoFFmpeg

/// `slomo plan`'s report: the retime map resolved against a file and its constant-rate schedule.
public struct PlanReport: Codable, Sendable {
    public struct Mapping: Codable, Sendable {
        public var sourceStart: Rational
        public var sourceEnd: Rational
        public var targetStart: Rational
        public var targetEnd: Rational
        public var rate: Rational
    }
    public struct ScheduledFrame: Codable, Sendable {
        public var outputFrame: Int64
        public var targetTime: Rational
        public var sourceTime: Rational
        public var sourceFrame: Int
    }
    public var path: String
    public var sourceDuration: Rational
    public var sourceFrameRate: Rational?
    public var sourceFrames: Int
    public var targetDuration: Rational
    public var outputFrameRate: Rational
    public var outputFrames: Int64
    public var mappings: [Mapping]
    public var schedule: [ScheduledFrame]?
    /// `--curve`: its key points and where the curve starts and ends on both timelines.
    public var curve: Curve?
    /// `--start`/`--end`: the part kept, on the source timeline and where it lies on the whole
    /// output timeline (the output itself starts at 0); nil without them.
    public var trim: Trim?
    public struct Trim: Codable, Sendable {
        public var sourceStart: Rational
        public var sourceEnd: Rational
        public var targetStart: Rational
        public var targetEnd: Rational
    }
    /// `--frame-blend`: which output frames show a source frame at its own time and which fall
    /// between two (repeated by `none`, made by the others), over how many source pairs.
    public var frameUse: FrameUse?

    public struct FrameUse: Codable, Sendable, Equatable {
        public var frameBlend: String
        /// Output frames at a source frame's own time (or past the last one): that frame.
        public var atSourceFrames: Int64
        /// Output frames strictly between two source frames, and the distinct pairs around them.
        public var between: Int64
        public var pairs: Int
        /// What happens to `between`: "repeated" (`none`) or "made".
        public var betweenFrames: String

        /// Counts them over a schedule against the source's frame times.
        public static func count(_ schedule: CFRSchedule, sourceTimes times: [Rational], frameBlend: ExportRequest.FrameBlend) -> FrameUse {
            var at: Int64 = 0, between: Int64 = 0, pairs = 0, lastPair = -1
            for n in 0..<schedule.frameCount {
                let s = schedule.sourceTime(ofFrame: n)
                let i = CFRSchedule.frameIndex(at: s, in: times)
                if i + 1 < times.count && s > times[i] {
                    between += 1
                    if i != lastPair {
                        pairs += 1
                        lastPair = i
                    }
                } else {
                    at += 1
                }
            }
            return FrameUse(
                frameBlend: frameBlend.rawValue, atSourceFrames: at, between: between, pairs: pairs,
                betweenFrames: frameBlend == .none ? "repeated" : "made")
        }
    }

    public struct Curve: Codable, Sendable {
        public struct Key: Codable, Sendable {
            public var sourceTime: Rational
            public var targetTime: Rational
            public var rate: Rational
        }
        public var text: String
        public var keys: [Key]
    }
}

/// Resolves a retime spec against a media file (`slomo plan`; export and retime use the same steps).
public enum Planner {
    /// `frameBlend`: also count the output frames that fall between source frames (`frameUse`).
    /// `trim`: the part `--start`/`--end` keep, as export keeps it (its frames only, from its start).
    public static func plan(
        path: String, spec: RetimeSpec, outputFrameRate: Rational, listFrames: Bool,
        frameBlend: ExportRequest.FrameBlend? = nil, trim: SourceTrim = SourceTrim()
    ) throws -> PlanReport {
        let probe = try Prober.probe(path: path)
        guard let v = probe.streams.first(where: { $0.kind == "video" }) else {
            throw MediaError.noVideoStream(path: path, operation: "plan")
        }
        guard let duration = v.duration ?? probe.container.duration, duration.isPositive else {
            throw MediaError.noDuration(path: path, operation: "plan")
        }
        let map: RetimeMap
        // a curve or ramp passes exactly through every frame's time: read them first
        // (export's own frame times: snapped to the rate's grid where the time base is coarse, damaged
        // timestamps refused the same way)
        let timeline = spec.glides || !trim.isEmpty ? try MediaTimeline(path: path) : nil
        let curveTimes = spec.glides ? timeline?.frameTimes : nil
        let frameRate = v.measuredFrameRate ?? v.nominalFrameRate
        do { map = try spec.resolve(duration: duration, frameRate: frameRate, curveNodes: curveTimes) } catch {
            throw FileRetimeError(path, error)
        }
        var curve: PlanReport.Curve?
        if let c = spec.curve, let resolved = try? c.resolve(duration: duration, frameRate: frameRate) {
            curve = PlanReport.Curve(
                text: c.text,
                keys: zip(resolved.times, c.keys).map {
                    .init(sourceTime: $0.0, targetTime: map.targetTime(forSource: $0.0), rate: $0.1.rate)
                })
        }
        try ExportError.checkFrameRate(outputFrameRate)
        let window = try timeline.flatMap { t throws(SettingError) in try trim.window(timeline: t, map: map) }
        let schedule = CFRSchedule(map: map, frameRate: outputFrameRate, window: window?.target)
        var frames: [PlanReport.ScheduledFrame]?
        var frameUse: PlanReport.FrameUse?
        if listFrames || curve != nil || frameBlend != nil {
            let times = try timeline?.frameTimes ?? MediaTimeline(path: path).frameTimes
            if let frameBlend { frameUse = .count(schedule, sourceTimes: times, frameBlend: frameBlend) }
            if listFrames || curve != nil {
                frames = (0..<schedule.frameCount).map { n in
                    PlanReport.ScheduledFrame(
                        outputFrame: n, targetTime: schedule.targetTime(ofFrame: n),
                        sourceTime: schedule.sourceTime(ofFrame: n),
                        sourceFrame: schedule.sourceFrameIndex(ofFrame: n, sourceTimes: times))
                }
            }
        }
        // with --start/--end: the pieces of the kept part, cut at its ends
        let kept = window?.source ?? map.source
        let pieces = map.mappings.filter { $0.source.end > kept.start && $0.source.start < kept.end }.map { m -> PlanReport.Mapping in
            let s0 = Rational.max(m.source.start, kept.start), s1 = Rational.min(m.source.end, kept.end)
            return .init(sourceStart: s0, sourceEnd: s1, targetStart: map.targetTime(forSource: s0), targetEnd: map.targetTime(forSource: s1), rate: m.rate)
        }
        var report = PlanReport(
            path: path, sourceDuration: duration, sourceFrameRate: v.measuredFrameRate, sourceFrames: Int(v.frameCount ?? 0),
            targetDuration: schedule.covered.duration, outputFrameRate: outputFrameRate, outputFrames: schedule.frameCount,
            mappings: pieces, schedule: frames, curve: curve, frameUse: frameUse)
        report.trim = window.map { .init(sourceStart: $0.source.start, sourceEnd: $0.source.end, targetStart: $0.target.start, targetEnd: $0.target.end) }
        return report
    }

    /// Presentation times of the video frames, relative to the first, sorted.
    static func sourceFrameTimes(path: String) throws -> [Rational] {
        let d = try MediaInput.openInput(path)
        guard let v = d.bestStream(.video) else { return [] }
        d.keepOnly(streams: [v])
        let tb = d.streamInfo(v).timeBase
        var pts: [Int64] = []
        let p = Packet()
        while try d.readPacket(into: p) { if p.streamIndex == v, let t = p.pts ?? p.dts { pts.append(t) } }
        pts.sort()
        guard let first = pts.first, !pts[pts.count - 1].subtractingReportingOverflow(first).overflow else { return [] }
        return pts.map { Rational(ticks: $0 - first, timeBase: tb) }
    }
}
